import Chronicle
import Testing

/// Matches expected changes against the net changes of the commits.
enum CommitExpectation {
    static func check(store: Store, before: StoreState, expected: [ExpectedChange], exhaustivity: Exhaustivity,
                      sourceLocation: SourceLocation) {
        let net: NetChanges
        do {
            net = try NetChanges(from: before, journal: store.journalForReading, through: store.packageCommittedState.version)
        } catch {
            Issue.record(error, "expectCommit could not read the commits", sourceLocation: sourceLocation)
            return
        }
        let differences = differences(net, expected, exhaustivity: exhaustivity, store: store)
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

    static func differences(_ net: NetChanges, _ expected: [ExpectedChange], exhaustivity: Exhaustivity,
                            store: Store) -> [String] {
        var unmatched = net.items
        var differences: [String] = []
        var matchers: [CreationMatcher] = []
        let names = SchemaNames(schema: net.after.schema)
        func take(_ item: NetChanges.Item) -> Bool {
            guard let index = unmatched.firstIndex(of: item) else { return false }
            unmatched.remove(at: index)
            return true
        }
        for expectation in expected {
            if case .createdMatching(let matcher) = expectation.kind {
                matchers.append(matcher)
                continue
            }
            guard let instance = expectation.object else { continue }
            guard let address = expectation.addressBefore ?? instance.packageAddress, address.store === store else {
                if case .created = expectation.kind, instance.packageAddress == nil {
                    differences.append("expected a creation of \(type(of: instance)) that never happened: "
                                       + "the object was never added to the store")
                } else {
                    differences.append("\(expectation): the object is not managed by this store")
                }
                continue
            }
            let target = TableKey(table: address.table, key: address.key)
            let object = names.object(address.table, address.key)
            let wasCreated = net.items.contains(.created(target))
            let wasDeleted = net.items.contains(.deleted(target))
            switch expectation.kind {
            case .createdMatching:
                continue
            case .created:
                if !take(.created(target)) { differences.append("expected \(object) to be created; it existed before") }
            case .deleted:
                if !take(.deleted(target)) { differences.append("expected a deletion of \(object) that never happened") }
            case let .set(path, keyPath, expectedValue, matches):
                guard path.count == 1 else {
                    differences.append(PropertyProblem.describe(keyPath: keyPath, path: path))
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
        differences += matchCreations(matchers, &unmatched, names: names, store: store)
        guard exhaustivity == .on else { return differences }
        for item in unmatched {
            if case .set = item {} else if net.isEmbedded(item.target) { continue }
            differences.append("unexpected: " + net.describe(item))
        }
        return differences
    }

    /// Pairs each matcher with a distinct created object it accepts — as
    /// many as possible, whatever the order they are listed in — removes
    /// the paired creations from `unmatched`, and describes the matchers
    /// left without one.
    ///
    /// - Complexity: O(matchers² × created objects of their types) in the
    ///   worst case (augmenting paths); a test lists a handful.
    static func matchCreations(_ matchers: [CreationMatcher], _ unmatched: inout [NetChanges.Item],
                               names: SchemaNames, store: Store) -> [String] {
        guard !matchers.isEmpty else { return [] }
        var objectsOfType: [String: [ObjectKey: ObjectBase]] = [:]
        var candidates: [[TableKey]] = []   // per matcher: created objects of its type
        var accepts: [[Bool]] = []          // per matcher, per candidate
        for matcher in matchers {
            let objects = objectsOfType[matcher.typeName] ?? matcher.objects(store)
            objectsOfType[matcher.typeName] = objects
            let created = unmatched.compactMap { item -> TableKey? in
                guard case .created(let target) = item, names.typeName(target.table) == matcher.typeName else { return nil }
                return target
            }
            candidates.append(created)
            accepts.append(created.map { target in
                matcher.problems.isEmpty && objects[target.key].map { matcher.mismatch($0) == nil } == true
            })
        }
        // Kuhn's augmenting paths: `owner[target]` is the matcher holding it.
        var owner: [TableKey: Int] = [:]
        func assign(_ matcher: Int, _ visited: inout Set<TableKey>) -> Bool {
            for (index, target) in candidates[matcher].enumerated() where accepts[matcher][index] && !visited.contains(target) {
                visited.insert(target)
                if let holder = owner[target], !assign(holder, &visited) { continue }
                owner[target] = matcher
                return true
            }
            return false
        }
        var unassigned: [Int] = []
        for matcher in matchers.indices {
            var visited = Set<TableKey>()
            if !assign(matcher, &visited) { unassigned.append(matcher) }
        }
        unmatched.removeAll { item in
            if case .created(let target) = item { owner[target] != nil } else { false }
        }
        var differences: [String] = []
        for index in unassigned {
            let matcher = matchers[index]
            guard matcher.problems.isEmpty else {
                differences += matcher.problems
                continue
            }
            var line = "expected a creation of \(matcher.typeName)\(matcher.wording.isEmpty ? "" : " " + matcher.wording) that never happened"
            let others = candidates[index].filter { owner[$0] == nil }.compactMap { target -> String? in
                guard let object = objectsOfType[matcher.typeName]?[target.key], let why = matcher.mismatch(object) else { return nil }
                return "\(names.object(target.table, target.key)) was created \(why)"
            }
            if !others.isEmpty { line += "; " + others.joined(separator: "; ") }
            differences.append(line)
        }
        return differences
    }
}
