/// The index changes that turn one array into another, in the Realm SDK's
/// convention: deletions are indexes in `old`, insertions indexes in `new`.
/// Applying the deletions (highest first) and then the insertions (lowest
/// first) to `old` gives `new`.
struct IndexDiff: Equatable {
    var deletions: [Int] = []
    var insertions: [Int] = []
    /// For each element kept in place, its index in `old` and in `new`.
    var kept: [(old: Int, new: Int)] = []

    static func == (lhs: IndexDiff, rhs: IndexDiff) -> Bool {
        lhs.deletions == rhs.deletions && lhs.insertions == rhs.insertions
            && lhs.kept.map(\.old) == rhs.kept.map(\.old) && lhs.kept.map(\.new) == rhs.kept.map(\.new)
    }

    /// Largest `old.count × new.count` for the quadratic diff of arrays with duplicates.
    static let quadraticLimit = 4_000_000

    /// - Complexity: O((*n* + *m*) log *n*) when elements are unique (query
    ///   results, lists of objects); O(*n* × *m*) for arrays with duplicates
    ///   up to ``quadraticLimit``, beyond which everything is replaced.
    static func compute<Element: Hashable>(old: [Element], new: [Element]) -> IndexDiff {
        let oldSet = Set(old)
        if oldSet.count == old.count, Set(new).count == new.count {
            return unique(old: old, new: new)
        }
        if old.count * new.count <= quadraticLimit {
            return commonSubsequence(old: old, new: new)
        }
        return IndexDiff(deletions: Array(old.indices), insertions: Array(new.indices), kept: [])
    }

    /// Unique elements: the elements in both arrays whose relative order is
    /// unchanged form a longest increasing subsequence of new positions.
    private static func unique<Element: Hashable>(old: [Element], new: [Element]) -> IndexDiff {
        var newIndex: [Element: Int] = [:]
        newIndex.reserveCapacity(new.count)
        for (index, element) in new.enumerated() { newIndex[element] = index }
        let common: [(old: Int, new: Int)] = old.enumerated().compactMap { pair in
            newIndex[pair.element].map { (pair.offset, $0) }
        }
        // Patience-sort LIS over the new positions, keeping predecessors.
        var tails: [Int] = []          // indexes into `common`
        var previous = [Int](repeating: -1, count: common.count)
        for (i, pair) in common.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if common[tails[mid]].new < pair.new { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[i] = tails[low - 1] }
            if low == tails.count { tails.append(i) } else { tails[low] = i }
        }
        var kept: [(old: Int, new: Int)] = []
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            kept.append(common[cursor])
            cursor = previous[cursor]
        }
        kept.reverse()
        return IndexDiff(kept: kept, oldCount: old.count, newCount: new.count)
    }

    /// Arrays with duplicates: a longest common subsequence by dynamic programming.
    private static func commonSubsequence<Element: Hashable>(old: [Element], new: [Element]) -> IndexDiff {
        let n = old.count, m = new.count
        var lengths = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lengths[i][j] = old[i] == new[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var kept: [(old: Int, new: Int)] = []
        var i = 0, j = 0
        while i < n && j < m {
            if old[i] == new[j] {
                kept.append((i, j))
                i += 1
                j += 1
            } else if lengths[i + 1][j] >= lengths[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return IndexDiff(kept: kept, oldCount: n, newCount: m)
    }

    private init(deletions: [Int], insertions: [Int], kept: [(old: Int, new: Int)]) {
        self.deletions = deletions
        self.insertions = insertions
        self.kept = kept
    }

    private init(kept: [(old: Int, new: Int)], oldCount: Int, newCount: Int) {
        var keptOld = [Bool](repeating: false, count: oldCount)
        var keptNew = [Bool](repeating: false, count: newCount)
        for pair in kept {
            keptOld[pair.old] = true
            keptNew[pair.new] = true
        }
        self.init(deletions: keptOld.indices.filter { !keptOld[$0] },
                  insertions: keptNew.indices.filter { !keptNew[$0] }, kept: kept)
    }
}
