/// A line diff of two texts, shown as unified-diff hunks: `-` lines only
/// the expected text has, `+` lines only the actual text has, and up to
/// two unchanged lines around each change.
struct LineDiff {
    enum Line: Equatable {
        case same(String)
        case removed(String)
        case added(String)
    }

    /// Above this many line pairs the diff is not computed (the caller
    /// shows the first differing line instead).
    static let limit = 4_000_000

    let lines: [Line]

    /// `nil` when the texts are too long to compare line by line.
    ///
    /// - Complexity: O(expected.count × actual.count) time and space (a
    ///   longest common subsequence), after the common prefix and suffix
    ///   are set aside.
    init?(expected: [String], actual: [String]) {
        var prefix = 0
        while prefix < min(expected.count, actual.count), expected[prefix] == actual[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < min(expected.count, actual.count) - prefix,
              expected[expected.count - 1 - suffix] == actual[actual.count - 1 - suffix] { suffix += 1 }
        let old = Array(expected[prefix..<(expected.count - suffix)])
        let new = Array(actual[prefix..<(actual.count - suffix)])
        guard old.count * new.count <= Self.limit else { return nil }
        // common[i][j]: the longest common subsequence of old[i...] and new[j...].
        var common = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var lines = expected[..<prefix].map(Line.same)
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                lines.append(.same(old[i])); i += 1; j += 1
            } else if i < old.count, j == new.count || common[i + 1][j] >= common[i][j + 1] {
                lines.append(.removed(old[i])); i += 1   // removals first, as diff shows them
            } else {
                lines.append(.added(new[j])); j += 1
            }
        }
        lines += expected[(expected.count - suffix)...].map(Line.same)
        self.lines = lines
    }

    /// The changes with `context` unchanged lines around each, `…` where
    /// unchanged lines are left out.
    func hunks(context: Int = 2) -> [String] {
        let changed = lines.indices.filter { lines[$0] != .same(text(lines[$0])) }
        var shown = Set<Int>()
        for index in changed {
            for near in max(0, index - context)...min(lines.count - 1, index + context) { shown.insert(near) }
        }
        var output: [String] = []
        var last: Int?
        for index in shown.sorted() {
            if let last, index > last + 1 { output.append("  …") }
            else if last == nil, index > 0 { output.append("  …") }
            switch lines[index] {
            case .same(let text): output.append("  " + text)
            case .removed(let text): output.append("- " + text)
            case .added(let text): output.append("+ " + text)
            }
            last = index
        }
        if let last, last < lines.count - 1 { output.append("  …") }
        return output
    }

    private func text(_ line: Line) -> String {
        switch line {
        case .same(let text), .removed(let text), .added(let text): text
        }
    }
}
