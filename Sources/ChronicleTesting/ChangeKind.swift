import Chronicle

/// Which change ``StreamProbe/require(_:timeout:sourceLocation:)`` waits for.
///
/// ```swift
/// try await probe.require(.initial)
/// let update = try await probe.require(.update)
/// ```
public enum ChangeKind: Sendable, CustomStringConvertible {
    /// A collection stream's first value, ``Chronicle/CollectionChange/initial(_:)``.
    case initial
    /// A collection change, ``Chronicle/CollectionChange/update(_:deletions:insertions:modifications:)``.
    case update
    /// An object change, ``Chronicle/ObjectChange/change(_:_:)``.
    case change
    /// The observed object was deleted, ``Chronicle/ObjectChange/deleted``.
    case deleted
    /// Whatever the stream delivers next.
    case any

    /// The kind in words: `an update`, `the initial value`.
    public var description: String {
        switch self {
        case .initial: "the initial value"
        case .update: "an update"
        case .change, .any: "a change"
        case .deleted: "a deletion"
        }
    }
}

/// A stream element whose kind a probe can check and print.
protocol ProbedChange {
    /// The element's kind; never ``ChangeKind/any``.
    var changeKind: ChangeKind? { get }
    /// The element in words, values printed by ``ValueText``.
    var probeDescription: String { get }
}

extension ObjectChange: ProbedChange {
    var changeKind: ChangeKind? {
        switch self {
        case .change: .change
        case .deleted: .deleted
        case .error: nil
        }
    }

    var probeDescription: String {
        switch self {
        case let .change(object, properties):
            let changes = properties.map { property in
                "\(property.name): \(ValueText.swift(property.oldValue as Any)) → \(ValueText.swift(property.newValue as Any))"
            }
            return "change of \(ValueText.swift(object)) (\(changes.joined(separator: ", ")))"
        case .deleted: return "deletion"
        case .error(let error): return "error \(error)"
        }
    }
}

extension CollectionChange: ProbedChange {
    var changeKind: ChangeKind? {
        switch self {
        case .initial: .initial
        case .update: .update
        case .error: nil
        }
    }

    var probeDescription: String {
        switch self {
        case .initial(let collection):
            return (collection as? any Swift.Collection).map { "initial value (\($0.count) elements)" } ?? "initial value"
        case let .update(_, deletions, insertions, modifications):
            return "update (deletions: \(deletions), insertions: \(insertions), modifications: \(modifications))"
        case .error(let error): return "error \(error)"
        }
    }
}

/// An element in words: a change as ``ProbedChange`` prints it, anything
/// else with its values printed by ``ValueText``.
func probeDescription(_ element: Any) -> String {
    (element as? any ProbedChange)?.probeDescription ?? ValueText.swift(element)
}
