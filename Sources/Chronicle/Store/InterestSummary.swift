/// Per table, what the registered observers may care about: any change
/// there (a collection observer, an observer whose paths cross links), or
/// only modifications of particular properties (an object observer of its
/// own properties).
///
/// ``ObserverRegistry`` checks a commit's ``ChangeFootprint`` against it
/// before building the commit's change set: a commit that only set
/// properties nobody watches, in tables nobody watches wholesale, builds
/// nothing and matches nothing.
///
/// - Complexity: ``concerns(_:)`` O(tables the commit modified);
///   ``add(_:)`` and ``remove(_:)`` O(objects and tables in the interest).
struct InterestSummary {
    /// Per table index: how many interests want any change there.
    private var anyChange: [Int] = []
    /// Per table index: how many interests watch each property bit (64
    /// counters, allocated on first use).
    private var propertyCounts: [[Int]] = []
    /// Per table index: the bits whose counter is above zero.
    private var propertyMasks: [UInt64] = []

    /// How many tables some interest has named so far.
    var tableCount: Int { anyChange.count }

    /// Whether a commit with `footprint` may matter to some observer.
    /// Creations, deletions and schema changes always may.
    func concerns(_ footprint: ChangeFootprint) -> Bool {
        if footprint.isStructural { return true }
        return footprint.containsModifiedTable { table, bits in
            table < anyChange.count && (anyChange[table] > 0 || propertyMasks[table] & bits != 0)
        }
    }

    mutating func add(_ interest: ObserverInterest) { update(interest, by: 1) }

    mutating func remove(_ interest: ObserverInterest) { update(interest, by: -1) }

    private mutating func update(_ interest: ObserverInterest, by delta: Int) {
        var tables = interest.tables
        for object in interest.objects { tables.insert(object.table) }
        if let properties = interest.properties, interest.tables.isEmpty, tables.count == 1, let table = tables.first {
            grow(to: table)
            if propertyCounts[table].isEmpty { propertyCounts[table] = Array(repeating: 0, count: 64) }
            for bit in 0..<64 where properties & (1 << UInt64(bit)) != 0 {
                propertyCounts[table][bit] += delta
                if propertyCounts[table][bit] > 0 {
                    propertyMasks[table] |= 1 << UInt64(bit)
                } else {
                    propertyMasks[table] &= ~(1 << UInt64(bit))
                }
            }
        } else {
            for table in tables {
                grow(to: table)
                anyChange[table] += delta
            }
        }
    }

    private mutating func grow(to table: Int) {
        guard anyChange.count <= table else { return }
        let missing = table + 1 - anyChange.count
        anyChange.append(contentsOf: repeatElement(0, count: missing))
        propertyCounts.append(contentsOf: repeatElement([], count: missing))
        propertyMasks.append(contentsOf: repeatElement(0, count: missing))
    }

    /// Traps if a counter is negative or a mask disagrees with its counters.
    func _checkInvariants() {
        precondition(anyChange.allSatisfy { $0 >= 0 }, "InterestSummary: a negative table count")
        for (table, counts) in propertyCounts.enumerated() {
            var mask: UInt64 = 0
            for (bit, count) in counts.enumerated() {
                precondition(count >= 0, "InterestSummary: a negative property count")
                if count > 0 { mask |= 1 << UInt64(bit) }
            }
            precondition(mask == propertyMasks[table], "InterestSummary: mask of table \(table) out of step")
        }
    }
}
