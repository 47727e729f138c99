import Chronicle
import Testing

/// Runs `body` and expects the commits it makes to `store` to change exactly
/// `changes` — no more, no less — recording one issue at the caller that
/// lists every difference otherwise.
///
/// ```swift
/// try expectCommit(in: store, changes: [.set(person, \.firstName, to: "Bob")]) {
///     try store.write { person.firstName = "Bob" }
/// }
/// ```
///
/// The comparison is of net changes: every commit made while `body` runs
/// (by any task) is folded, and each object's state after is compared with
/// its state before. A property set and set back does not count; an object
/// created and deleted in between does not either. Schema commits are
/// ignored, and so are creations and deletions of embedded objects (they go
/// with their parent); property changes of embedded objects count.
///
/// A failure reads:
///
/// ```text
/// Commits did not change what was expected (2 differences):
///   Person#1.firstName: expected "Bob", actual "Carl" (was "Ann")
///   unexpected: Person#1.lastName: "" → "Smith"
/// Committed (version 3):
///   set Person#1.firstName: "Ann" → "Carl"
///   set Person#1.lastName: "" → "Smith"
/// ```
///
/// If `body` throws, the error is rethrown and nothing is checked.
///
/// - Parameters:
///   - store: The store `body` writes to.
///   - changes: Every change `body` should make, in any order.
///   - sourceLocation: Where a failure is reported; the caller by default.
///   - body: The code under test.
/// - Returns: What `body` returns.
@discardableResult
public func expectCommit<R>(in store: Store, changes: [ExpectedChange],
                            sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () throws -> R) rethrows -> R {
    let before = store.packageCommittedState
    let result = try body()
    CommitExpectation.check(store: store, before: before, expected: changes, sourceLocation: sourceLocation)
    return result
}

/// The asynchronous form of
/// ``expectCommit(in:changes:sourceLocation:_:)-(_,_,_,()throws->R)``, for a
/// body that awaits (`asyncWrite`, a view model's async method).
///
/// - Parameters:
///   - store: The store `body` writes to.
///   - changes: Every change `body` should make, in any order.
///   - sourceLocation: Where a failure is reported; the caller by default.
///   - isolation: The caller's actor, inherited by `body`.
///   - body: The code under test.
/// - Returns: What `body` returns.
@discardableResult
public func expectCommit<R>(in store: Store, changes: [ExpectedChange],
                            sourceLocation: SourceLocation = #_sourceLocation,
                            isolation: isolated (any Actor)? = #isolation,
                            _ body: () async throws -> R) async rethrows -> R {
    let before = store.packageCommittedState
    let result = try await body()
    CommitExpectation.check(store: store, before: before, expected: changes, sourceLocation: sourceLocation)
    return result
}

/// Matches expected changes against the net changes of the commits.
enum CommitExpectation {
    static func check(store: Store, before: StoreState, expected: [ExpectedChange], sourceLocation: SourceLocation) {
        let net: NetChanges
        do {
            net = try NetChanges(from: before, journal: store.journalForReading, through: store.packageCommittedState.version)
        } catch {
            Issue.record(error, "expectCommit could not read the commits", sourceLocation: sourceLocation)
            return
        }
        let differences = differences(net, expected, store: store)
        guard !differences.isEmpty else { return }
        Issue.record(Comment(rawValue: report(differences, net)), sourceLocation: sourceLocation)
    }

    static func report(_ differences: [String], _ net: NetChanges) -> String {
        var lines = ["Commits did not change what was expected (\(differences.count) difference\(differences.count == 1 ? "" : "s")):"]
        lines += differences.map { "  " + $0 }
        switch net.versions {
        case nil: lines.append("Nothing was committed.")
        case let versions?:
            let which = versions.count == 1 ? "version \(versions.lowerBound)" : "versions \(versions.lowerBound)...\(versions.upperBound)"
            lines.append("Committed (\(which)):")
            lines += net.events.map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    static func differences(_ net: NetChanges, _ expected: [ExpectedChange], store: Store) -> [String] {
        var unmatched = net.items
        var differences: [String] = []
        let names = SchemaNames(schema: net.after.schema)
        func take(_ item: NetChanges.Item) -> Bool {
            guard let index = unmatched.firstIndex(of: item) else { return false }
            unmatched.remove(at: index)
            return true
        }
        for expectation in expected {
            guard let address = expectation.addressBefore ?? expectation.object.packageAddress, address.store === store else {
                differences.append("\(expectation): the object is not managed by this store")
                continue
            }
            let target = TableKey(table: address.table, key: address.key)
            let object = names.object(address.table, address.key)
            let wasCreated = net.items.contains(.created(target))
            let wasDeleted = net.items.contains(.deleted(target))
            switch expectation.kind {
            case .created:
                if !take(.created(target)) { differences.append("expected \(object) to be created; it existed before") }
            case .deleted:
                if !take(.deleted(target)) { differences.append("expected \(object) to be deleted; it was not") }
            case let .set(path, keyPath, expectedValue, matches):
                guard path.count == 1 else {
                    differences.append(path.isEmpty
                        ? "\(keyPath) reads no persisted property"
                        : "\(keyPath) reads \(path.joined(separator: ".")), a property of another object; expect a change of that object")
                    continue
                }
                guard let property = net.after.schema.indices.contains(address.table)
                        ? net.after.schema[address.table].propertyIndex(named: path[0]) : nil else {
                    differences.append("\(object) has no property \(path[0])")
                    continue
                }
                let propertySchema = names.property(address.table, property)
                let label = names.path(address.table, address.key, property)
                if wasDeleted {
                    differences.append("\(label): expected \(expectedValue), but \(object) was deleted")
                    continue
                }
                let current = net.after.object(table: address.table, key: address.key).map { $0[property] } ?? .null
                let actual = names.value(current, of: propertySchema)
                if wasCreated {
                    if !matches() { differences.append("\(label): expected \(expectedValue), actual \(actual) (created)") }
                    continue
                }
                guard let change = unmatched.first(where: {
                    if case .set(target, property, _, _) = $0 { true } else { false }
                }), case let .set(_, _, old, _) = change else {
                    differences.append("\(label): expected \(expectedValue), but it did not change (it is \(actual))")
                    continue
                }
                _ = take(change)
                if !matches() {
                    differences.append("\(label): expected \(expectedValue), actual \(actual) (was \(names.value(old, of: propertySchema)))")
                }
            }
        }
        for item in unmatched {
            if case .set = item {} else if net.isEmbedded(item.target) { continue }
            differences.append("unexpected: " + net.describe(item))
        }
        return differences
    }
}
