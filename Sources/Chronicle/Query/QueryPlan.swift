/// A query's property paths resolved once against one state's schema, so
/// that evaluating it on each object reads values by index instead of
/// looking property names up.
///
/// Evaluation over a plan is non-generic: it runs specialised code whatever
/// the element type of the ``Results`` (whose generic code would otherwise
/// run unspecialised from the app's module).
final class QueryPlan {
    // A class: every row of an evaluation refers to it with one reference
    // count, instead of copying its arrays and the state.
    /// One property on the way: its index, and the table it links to.
    struct Step {
        let property: Int
        let target: Int?
    }

    private let paths: [PropertyPath]
    private let steps: [[Step]?]
    let state: StoreState
    let table: Int

    /// Properties of the class that `state` does not have yet, and the
    /// value each reads as (see ``TableBinding/absentValues``).
    let absentValues: [String: PersistedValue]

    /// Resolves every path of `nodes` and `sortPaths` against `state`.
    init(nodes: [QueryNode], sortPaths: [PropertyPath] = [], table: Int, state: StoreState,
         absentValues: [String: PersistedValue] = [:]) {
        self.state = state
        self.table = table
        self.absentValues = absentValues
        var all = Set(sortPaths)
        for node in nodes { all.formUnion(node.referencedPaths()) }
        paths = Array(all)
        steps = paths.map { Self.resolve($0, from: table, in: state) }
    }

    private static func resolve(_ path: PropertyPath, from table: Int, in state: StoreState) -> [Step]? {
        var table = table
        var result: [Step] = []
        for name in path.components {
            guard let (property, target) = ChangePaths.resolve(name, table: table, in: state) else { return nil }
            result.append(Step(property: property, target: target))
            guard let target else { continue }
            table = target
        }
        return result
    }

    /// The steps of `path` (a linear search over the query's few paths).
    func steps(for path: PropertyPath) -> [Step]? {
        for (index, candidate) in paths.enumerated() where candidate == path { return steps[index] }
        return Self.resolve(path, from: table, in: state)
    }

    /// Calls `body` with a row for the object `key`, whose record the
    /// caller already has. The row lends the record's values: it is valid
    /// only inside `body`.
    func withRow<R, E: Error>(_ key: ObjectKey, _ record: ObjectRecord,
                              _ body: (PlannedRow) throws(E) -> R) throws(E) -> R {
        try withExtendedLifetime(record) { () throws(E) -> R in
            try body(PlannedRow(plan: self, key: key, record: record.unretained))
        }
    }

    /// Whether `test` accepts the object whose values are `values`; `false`
    /// where `Predicate.evaluate` would throw (a force unwrap met `nil`).
    @inline(__always)
    func accepts(_ test: CompiledTest, _ key: ObjectKey, _ record: RecordView) -> Bool {
        if let comparison = test.integerComparison, comparison.property < record.count {
            return comparison.accepts(record)
        }
        do {
            return try test.accepts(PlannedRow(plan: self, key: key, record: record))
        } catch {
            return false
        }
    }

    /// The keys among `candidates` (an index's answer) whose objects exist
    /// and pass `test`, in their order. Non-generic, like ``scan(from:accepting:into:needed:)``.
    ///
    /// - Complexity: O(*k* log *n*) for *k* candidates.
    func filter(_ candidates: [ObjectKey], accepting test: CompiledTest?) -> [ObjectKey] {
        let counter = EvaluationCounter.isInstalled ? EvaluationCounter.current : nil
        let test = test ?? .all
        return candidates.filter { key in
            counter?.count()
            guard let record = state.object(table: table, key: key) else { return false }
            return withExtendedLifetime(record) { accepts(test, key, record.unretained) }
        }
    }

    /// Appends to `keys` the keys of this plan's table, from `start` on in
    /// key order, of the objects `test` accepts (every object when `test`
    /// is `nil`), until `keys` holds `needed`.
    ///
    /// Non-generic, so the loop runs specialised whatever the element type
    /// of the ``Results`` that asked.
    ///
    /// - Returns: The key to resume from, or `nil` when the table is done.
    /// - Complexity: O(objects examined).
    func scan(from start: ObjectKey, accepting test: CompiledTest?, into keys: inout [ObjectKey], needed: Int = .max) -> ObjectKey? {
        var unused: [ObjectRecord] = []
        return scan(from: start, accepting: test, into: &keys, records: &unused, collectingRecords: false, needed: needed)
    }

    /// ``scan(from:accepting:into:needed:)``, also appending each accepted
    /// object's record to `records` when `collectingRecords` (for an
    /// iterator, whose handles then need no look-up each).
    func scan(from start: ObjectKey, accepting test: CompiledTest?, into keys: inout [ObjectKey],
              records: inout [ObjectRecord], collectingRecords: Bool, needed: Int = .max) -> ObjectKey? {
        let counter = EvaluationCounter.isInstalled ? EvaluationCounter.current : nil
        // The test is unwrapped once: an optional closure tested per object
        // costs a retain and a release of its context each time.
        let test = test ?? .all
        let comparison = test.integerComparison
        guard state.tables.indices.contains(table) else { return nil }
        if let comparison, counter == nil {
            let scan = IntegerScan(plan: self, comparison: comparison, start: start, collectingRecords: collectingRecords, needed: needed)
            return switch comparison.op {
            case .equal: scan.run(IsEqual.self, into: &keys, records: &records)
            case .notEqual: scan.run(IsNotEqual.self, into: &keys, records: &records)
            case .lessThan: scan.run(IsLess.self, into: &keys, records: &records)
            case .lessThanOrEqual: scan.run(IsLessOrEqual.self, into: &keys, records: &records)
            case .greaterThan: scan.run(IsGreater.self, into: &keys, records: &records)
            case .greaterThanOrEqual: scan.run(IsGreaterOrEqual.self, into: &keys, records: &records)
            }
        }
        var resume: ObjectKey?
        // Leaf by leaf: the sequence iterator's per-element bookkeeping (a
        // frame stack, an optional tuple per step) cost more than the test.
        state.tables[table].forEachLeaf(from: start.rawValue) { base, bits, leafRecords in
            var bits = bits
            var position = 0
            while bits != 0 {
                let key = ObjectKey(base | Int64(bits.trailingZeroBitCount))
                bits &= bits &- 1
                let record = position
                position += 1
                counter?.count()
                // The state this plan holds keeps the leaf and its records
                // alive and unchanged (a shared trie node is never written;
                // records streamed from a checkpoint file live for the call),
                // so the values are read in place: a retain and a release of
                // each record scanned were a noticeable part of a scan's
                // instructions and, being atomic, more of its time.
                let accepted = if let comparison {
                    comparison.accepts(RecordView(leafRecords.baseAddress.unsafelyUnwrapped + record))
                } else {
                    accepts(test, key, RecordView(leafRecords.baseAddress.unsafelyUnwrapped + record))
                }
                guard accepted else { continue }
                keys.append(key)
                if collectingRecords { records.append(leafRecords[record]) }
                if keys.count >= needed {
                    resume = ObjectKey(key.rawValue + 1)
                    return false
                }
            }
            return true
        }
        return resume
    }
}

/// A scan whose whole test is one ``QueryPlan/IntegerComparison`` (`score
/// < 100`, the commonest), compiled once per operator: the general scan
/// switched on the operator, and counted and keyed every object it
/// examined; this loop only compares, and takes far fewer instructions an
/// object. A stored value that is not an `.int` goes through
/// the comparison's general path, so the answers are the same.
///
/// Its loop repeats the general scan's on purpose: both sharing one inlined
/// loop that took the test as a closure made the scan much dearer (the
/// closure was not inlined).
///
/// - Complexity: O(objects examined).
private struct IntegerScan {
    let plan: QueryPlan
    let comparison: QueryPlan.IntegerComparison
    let start: ObjectKey
    let collectingRecords: Bool
    let needed: Int

    @inline(__always)
    func run<Operator: IntegerOperator>(_: Operator.Type, into keys: inout [ObjectKey], records: inout [ObjectRecord]) -> ObjectKey? {
        if let slot = comparison.integerSlot {
            return run(Operator.self, reading: SlotRead(slot: slot), into: &keys, records: &records)
        }
        return run(Operator.self, reading: TaggedRead(property: comparison.property), into: &keys, records: &records)
    }

    /// The loop, compiled for the operator and for how a record's integer
    /// is read (generic, not a closure: see the type's comment).
    @inline(__always)
    private func run<Operator: IntegerOperator, Read: IntegerRead>(_: Operator.Type, reading read: Read, into keys: inout [ObjectKey],
                                                                 records: inout [ObjectRecord]) -> ObjectKey? {
        let constant = comparison.constant
        var resume: ObjectKey?
        plan.state.tables[plan.table].forEachLeaf(from: start.rawValue) { base, bits, leafRecords in
            // A leaf holds one record for each bit set in `bits`, in order.
            var bits = bits
            for record in leafRecords.indices {
                let position = bits.trailingZeroBitCount
                bits &= bits &- 1
                // Read in place, as in `QueryPlan.scan`.
                let values = RecordView(leafRecords.baseAddress.unsafelyUnwrapped + record)
                let accepted = if let value = read.integer(values) {
                    Operator.apply(value, constant)
                } else {
                    comparison.accepts(values)
                }
                guard accepted else { continue }
                let key = ObjectKey(base | Int64(position))
                keys.append(key)
                if collectingRecords { records.append(leafRecords[record]) }
                if keys.count >= needed {
                    resume = ObjectKey(key.rawValue + 1)
                    return false
                }
            }
            return true
        }
        return resume
    }
}

/// How ``IntegerScan`` reads a record's integer: `nil` when the value is
/// not one (the comparison's general path then decides).
private protocol IntegerRead {
    func integer(_ record: RecordView) -> Int64?
}

/// The property's value, if its kind (in the record's header word) is an integer.
private struct TaggedRead: IntegerRead {
    let property: Int
    @inline(__always) func integer(_ record: RecordView) -> Int64? { record.integer(at: property) }
}

/// The integer every record of the table holds at byte offset `slot`
/// (``QueryPlan/IntegerComparison/integerSlot``): one load, no header word.
private struct SlotRead: IntegerRead {
    let slot: Int
    @inline(__always) func integer(_ record: RecordView) -> Int64? { record.integer(inSlot: slot) }
}

/// A ``ComparisonOperator`` on integers as a type, so that a loop generic
/// over it is compiled with the comparison inlined.
private protocol IntegerOperator {
    static func apply(_ lhs: Int64, _ rhs: Int64) -> Bool
}
private enum IsEqual: IntegerOperator { static func apply(_ lhs: Int64, _ rhs: Int64) -> Bool { lhs == rhs } }
private enum IsNotEqual: IntegerOperator { static func apply(_ lhs: Int64, _ rhs: Int64) -> Bool { lhs != rhs } }
private enum IsLess: IntegerOperator { static func apply(_ lhs: Int64, _ rhs: Int64) -> Bool { lhs < rhs } }
private enum IsLessOrEqual: IntegerOperator { static func apply(_ lhs: Int64, _ rhs: Int64) -> Bool { lhs <= rhs } }
private enum IsGreater: IntegerOperator { static func apply(_ lhs: Int64, _ rhs: Int64) -> Bool { lhs > rhs } }
private enum IsGreaterOrEqual: IntegerOperator { static func apply(_ lhs: Int64, _ rhs: Int64) -> Bool { lhs >= rhs } }

/// One object read through a ``QueryPlan``.
///
/// A row lends its object's values and is valid only for the call it is
/// passed to (see ``QueryPlan/withRow(_:_:_:)``): the scan reads records
/// in place, without a reference count per object.
struct PlannedRow: QueryRow {
    let plan: QueryPlan
    let key: ObjectKey
    /// The object's values, indexed like its type's properties.
    let record: RecordView

    /// The value of the object's own property `property`; `nil` if the
    /// record has no such property.
    @inline(__always)
    func ownValue(_ property: Int) -> PersistedValue? {
        record.valueIfPresent(property)
    }

    /// - Complexity: O(path length × log *n*); the first step reads the
    ///   object's own values directly.
    func value(at path: PropertyPath) -> PersistedValue? {
        guard let steps = plan.steps(for: path), let first = steps.first, var value = ownValue(first.property) else {
            return nil
        }
        for (depth, step) in steps.enumerated() {
            if depth > 0 {
                // Across a link: `value` linked to the object holding this step's property.
                guard case .link(let next) = value, let target = steps[depth - 1].target,
                      let linked = plan.state.object(table: target, key: next),
                      let next = linked.valueIfPresent(step.property) else { return nil }
                value = next
            }
            if depth == steps.count - 1 {
                // A link to a deleted object reads as nil.
                if case .link(let linked) = value, let target = step.target,
                   !plan.state.contains(table: target, key: linked) { return .null }
                return value
            }
        }
        return nil
    }
}

extension ObjectRecord {
    /// The record, lent without a reference count.
    ///
    /// Only for a record that something else keeps alive and unchanged for
    /// as long as the view is used (a record in a state's trie, which a
    /// state held by the caller owns, or a local kept with
    /// `withExtendedLifetime`): the view holds its storage unmanaged, so no
    /// retain or release is made. That is the point.
    @inline(__always)
    var unretained: RecordView { RecordView(storage: .passUnretained(storage)) }
}

/// An ``ObjectRecord``'s values, read in place without a reference count
/// (see ``ObjectRecord/unretained``).
struct RecordView {
    let storage: Unmanaged<RecordStorage>

    @inline(__always)
    init(storage: Unmanaged<RecordStorage>) { self.storage = storage }

    /// A view of the record at `record` (in a trie leaf, say), read from
    /// the pointer without copying the record: a copy would retain it.
    @inline(__always)
    init(_ record: UnsafePointer<ObjectRecord>) {
        // An `ObjectRecord` is its storage reference and nothing else.
        storage = UnsafeRawPointer(record).load(as: Unmanaged<RecordStorage>.self)
    }

    /// The number of values. O(1).
    @inline(__always)
    var count: Int { storage._withUnsafeGuaranteedRef { $0.count } }

    /// The value of `property`, or `nil` past the last one. O(1).
    @inline(__always)
    func valueIfPresent(_ property: Int) -> PersistedValue? {
        storage._withUnsafeGuaranteedRef { property >= 0 && property < $0.count ? $0.value(at: property) : nil }
    }

    /// The value of `property` (< ``count``). O(1).
    @inline(__always)
    subscript(property: Int) -> PersistedValue { storage._withUnsafeGuaranteedRef { $0.value(at: property) } }

    /// Calls `body` with the slot of `property` (< ``count``) and its kind.
    @inline(__always)
    func withSlot<R>(_ property: Int, _ body: (UnsafeRawPointer, UInt64) -> R) -> R {
        storage._withUnsafeGuaranteedRef { $0.slot(of: property, body) }
    }

    /// ``withSlot(_:_:)`` where the slot is at byte offset `fixedOffset`
    /// in every record of the table (``RecordStorage/fixedOffset(of:in:)``),
    /// or anywhere if it is −1.
    @inline(__always)
    func withSlot<R>(_ property: Int, fixedOffset: Int, _ body: (UnsafeRawPointer, UInt64) -> R) -> R {
        storage._withUnsafeGuaranteedRef { $0.slot(of: property, fixedOffset: fixedOffset, body) }
    }

    /// The integer at `property` (< ``count``) if it holds one. O(1).
    @inline(__always)
    func integer(at property: Int) -> Int64? { storage._withUnsafeGuaranteedRef { $0.integer(at: property) } }

    /// The integer in the slot at byte offset `offset`, which holds one
    /// in every record of its table (``QueryPlan/IntegerComparison/integerSlot``).
    /// O(1): one load, not the header's too.
    @inline(__always)
    func integer(inSlot offset: Int) -> Int64 { storage._withUnsafeGuaranteedRef { $0.integer(inSlot: offset) } }
}
