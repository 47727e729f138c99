import Synchronization

/// Records which `@Persisted` properties a key path reads.
///
/// Chronicle maps a Swift key path to persisted property names by applying
/// it to a throwaway *recording* instance whose property reads log their
/// names: `\Person.address?.city` logs `address` then `address.city`;
/// `\Person.lastName.localizedCapitalized.first` logs `lastName` and then
/// transforms a probe value. Queries, projections and observation all use
/// this one mapping.
final class KeyPathRecorder: Sendable {
    private let state = Locked<(paths: [[String]], lastProbe: (any Hashable & Sendable)?)>(([], nil))

    /// Logs a read of property `ordinal` of `type` under `prefix`; returns the full path.
    func record(prefix: [String], ordinal: Int, of type: ObjectBase.Type) -> [String] {
        let path = prefix + [ClassMetadata.known(type).propertyName(ordinal: ordinal)]
        state.withLock { $0.paths.append(path) }
        return path
    }

    /// Remembers the probe value handed out for the last read.
    func handedOut(_ probe: (any Hashable & Sendable)?) { state.withLock { $0.lastProbe = probe } }

    var paths: [[String]] { state.withLock { $0.paths } }
    var lastProbe: (any Hashable & Sendable)? { state.withLock { $0.lastProbe } }
}

/// The persisted properties one key path reads.
struct RecordedKeyPath: Sendable, Hashable {
    /// The deepest persisted property the key path reaches, e.g. `["address", "city"]`.
    let path: [String]
    /// Every persisted property it reads along the way (its dependency set).
    let dependencies: [[String]]
    /// Whether the key path's value *is* that property's value, rather than
    /// something computed from it (`lastName.localizedCapitalized`).
    let isDirect: Bool

    var dottedPath: String { path.joined(separator: ".") }
}

/// A key path that touches no persisted property (a computed property, say).
public struct UnpersistedKeyPathError: Error, Sendable, CustomStringConvertible {
    /// The key path's description.
    public let keyPath: String
    /// A readable description, for logs and test failures.
    public var description: String {
        "\(keyPath) reads no @Persisted property; queries, sorting, projections and observation need a persisted property"
    }
}

enum KeyPathMapping {
    private static let cache = Locked<[SendableKeyPath: RecordedKeyPath]>([:])

    /// Maps a key path rooted at a model class to the persisted properties it reads.
    ///
    /// - Complexity: O(1) after the first call for a key path.
    static func record(_ keyPath: AnyKeyPath) throws(UnpersistedKeyPathError) -> RecordedKeyPath {
        let cacheKey = SendableKeyPath(keyPath)
        if let cached = cache.withLock({ $0[cacheKey] }) { return cached }
        // Key paths on a model class apply to a recording instance of it; key
        // paths on a projection apply to a projection of one, so a projected
        // property maps back to the base properties it reads.
        let recorder = KeyPathRecorder()
        let root: Any
        if let rootType = type(of: keyPath).rootType as? any _ObjectProjecting.Type {
            root = rootType._project(makeRecordingInstance(rootType._rootType, recorder: recorder, prefix: []))
        } else if let optional = type(of: keyPath).rootType as? any OptionalObjectRoot.Type {
            // `\Dog?.?.name`, the key paths of a `Map<String, Dog?>`'s values.
            root = optional.wrapping(makeRecordingInstance(optional.wrappedObjectType, recorder: recorder, prefix: []))
        } else {
            throw UnpersistedKeyPathError(keyPath: describeTypes(keyPath))
        }
        let value = root[keyPath: keyPath]
        let paths = recorder.paths
        guard let deepest = paths.last else { throw UnpersistedKeyPathError(keyPath: describeTypes(keyPath)) }
        let isDirect = isProbe(value, recorder.lastProbe)
        var seen = Set<[String]>()
        let dependencies = paths.filter { seen.insert($0).inserted }
        let recorded = RecordedKeyPath(path: deepest, dependencies: dependencies, isDirect: isDirect)
        cache.withLock { $0[cacheKey] = recorded }
        return recorded
    }

    /// A key path as the app wrote it, by property names: `\Person.address.city`
    /// for a key path to a persisted property (Swift prints key paths
    /// through `@Persisted` properties as `\Person.<computed 0x…>`); for
    /// one that computes from persisted properties, what it computes from;
    /// otherwise its root and value types.
    static func describe(_ keyPath: AnyKeyPath) -> String {
        let types = type(of: keyPath)
        let root = types.rootType is any _ObjectProjecting.Type || types.rootType is any OptionalObjectRoot.Type
        if root, let recorded = try? record(keyPath) {
            let path = "\\\(types.rootType).\(recorded.dottedPath)"
            return recorded.isDirect ? path : "a key path computed from \(path)"
        }
        return describeTypes(keyPath)
    }

    /// A key path by its root and value types, without recording it.
    private static func describeTypes(_ keyPath: AnyKeyPath) -> String {
        "a key path from \(type(of: keyPath).rootType) to \(type(of: keyPath).valueType)"
    }

    static func makeRecordingInstance(_ type: ObjectBase.Type, recorder: KeyPathRecorder, prefix: [String]) -> ObjectBase {
        let instance = ConstructionFrame.makeInternal(type)
        _ = instance.binding.storeIfNil(ObjectBinding(.recording(recorder, prefix: prefix)))
        return instance
    }

    private static func isProbe(_ value: Any?, _ probe: (any Hashable & Sendable)?) -> Bool {
        guard let value else { return false }
        if let object = value as? ObjectBase, case .recording = object.binding.load()?.kind { return true }
        if let collection = value as? _RecordingCollection { return collection.isRecording }
        guard let probe else { return value is Bool || value is any PersistableEnum }
        return (value as? AnyHashable) == AnyHashable(probe)
    }
}

/// An optional object type, as the root of a key path into a collection of
/// optional objects.
protocol OptionalObjectRoot {
    static var wrappedObjectType: ObjectBase.Type { get }
    static func wrapping(_ object: ObjectBase) -> Any
}

extension Optional: OptionalObjectRoot where Wrapped: ObjectBase {
    static var wrappedObjectType: ObjectBase.Type { Wrapped.self }
    static func wrapping(_ object: ObjectBase) -> Any { Optional(object as! Wrapped) as Any }
}

/// Collections handed out by recording instances.
protocol _RecordingCollection {
    var isRecording: Bool { get }
}

/// A key path as a dictionary key shared across threads.
struct SendableKeyPath: Hashable, @unchecked Sendable {
    // Safety: key path objects are immutable once formed.
    let keyPath: AnyKeyPath
    init(_ keyPath: AnyKeyPath) { self.keyPath = keyPath }
}

/// A typed key path captured by `@Sendable` closures.
struct SendableTypedKeyPath<Root, Value>: @unchecked Sendable {
    // Safety: key path objects are immutable once formed.
    let keyPath: KeyPath<Root, Value>
}
