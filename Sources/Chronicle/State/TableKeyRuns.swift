/// Object keys in the order appended, consecutive keys of one table kept
/// as one run: the keys a write hands out one after another (a bulk
/// insert's) take one element, not one each that a large write grows by
/// doubling into fresh pages.
///
/// - Complexity: ``append(_:)`` O(1) amortised; iterating O(keys).
struct TableKeyRuns: Sendable {
    /// `count` keys of `table`, from `first` up.
    private struct Run: Sendable {
        var table: Int
        var first: Int64
        var count: Int64
    }

    private var runs: [Run] = []

    /// Whether no key was appended.
    var isEmpty: Bool { runs.isEmpty }

    /// Appends `key`: to the last run if it is the key after that run's last.
    mutating func append(_ key: TableKey) {
        if let last = runs.last, last.table == key.table, last.first &+ last.count == key.key.rawValue {
            runs[runs.count - 1].count += 1
        } else {
            runs.append(Run(table: key.table, first: key.key.rawValue, count: 1))
        }
    }

    /// Every key, in the order appended.
    var keys: some Sequence<TableKey> {
        runs.lazy.flatMap { run in
            (0..<run.count).lazy.map { TableKey(table: run.table, key: ObjectKey(run.first + $0)) }
        }
    }
}
