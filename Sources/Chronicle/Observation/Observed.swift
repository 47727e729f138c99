import Observation

/// Makes a Chronicle object or projection observable by the Observation
/// framework, so that `withObservationTracking`, `@Observable` models and —
/// on Apple platforms — SwiftUI views update when the properties they read
/// change.
///
/// ```swift
/// let profile = Observed(store.objects(Profile.self).first!)
/// withObservationTracking {
///     print(profile.firstName)          // tracked: reads go through Observed
/// } onChange: {
///     print("firstName changed")        // fires after a commit changes it
/// }
/// ```
///
/// Reads use dynamic member lookup: `observed.firstName` reads
/// `value.firstName` and tells the Observation framework which property was
/// read. Lookup goes one level deep — `observed.address?.city` tracks
/// `address`, then reads `city` off the plain object — so to track a value
/// nested in a linked or embedded object, project it
/// (`@Projected(\Person.address?.city) var homeCity`) and observe the
/// projection. Behind it, `Observed` consumes a change stream filtered by the
/// properties read so far, so a commit that changes nothing a reader looked
/// at triggers nothing. Changes are signalled from a background task, after
/// the commit.
@dynamicMemberLookup
public final class Observed<Value: _ObjectProjecting>: Observable, Sendable {
    /// The object or projection being observed. (Named so as not to hide a
    /// model property called `value` from dynamic member lookup.)
    public let wrapped: Value
    private let registrar = ObservationRegistrar()
    private let state = Locked(State())

    private struct State: Sendable {
        /// For each observation key path (dotted persisted path, or projected
        /// property name), the signals of the members read through it.
        var signals: [String: [String: @Sendable () -> Void]] = [:]
        var stream: Task<Void, Never>?
        var streamedPaths: Set<String> = []
    }

    /// Observes `value`.
    ///
    /// - Precondition: `value` is managed and not frozen.
    public init(_ value: Value) {
        wrapped = value
    }

    deinit {
        state.withLock { $0.stream?.cancel() }
    }

    /// Reads `keyPath` of the wrapped object and registers the read with the
    /// Observation framework.
    public subscript<Member>(dynamicMember keyPath: KeyPath<Value, Member>) -> Member {
        let observedKeyPath = SendableTypedKeyPath(keyPath: \Observed<Value>.[dynamicMember: keyPath])
        registrar.access(self, keyPath: observedKeyPath.keyPath)
        let name = Observed.observationName(of: keyPath)
        let isNew = state.withLock { state in
            let member = "\(keyPath)"
            guard state.signals[name]?[member] == nil else { return false }
            state.signals[name, default: [:]][member] = { [weak self] in
                guard let self else { return }
                self.registrar.withMutation(of: self, keyPath: observedKeyPath.keyPath) {}
            }
            return !state.streamedPaths.contains(name)
        }
        if isNew { restartStream() }
        return wrapped[keyPath: keyPath]
    }

    /// The name a change stream reports for `keyPath`.
    private static func observationName(of keyPath: AnyKeyPath) -> String {
        ObservedProperties.name(of: keyPath, for: Value.self)
    }

    /// Subscribes to the paths read so far. The new stream is registered
    /// before the old one is cancelled, so no commit falls between them.
    private func restartStream() {
        let paths = state.withLock { Array($0.signals.keys).sorted() }
        let stream: ObjectChanges<Value>
        do { stream = try wrapped.changes(keyPaths: paths) } catch {
            preconditionFailure("Chronicle: \(error)")
        }
        let task = Task { [weak self] in
            for await change in stream {
                guard let self else { return }
                self.signal(change)
            }
        }
        let old = state.withLock { state -> Task<Void, Never>? in
            defer {
                state.stream = task
                state.streamedPaths = Set(paths)
            }
            return state.stream
        }
        old?.cancel()
    }

    private func signal(_ change: ObjectChange<Value>) {
        let signals: [@Sendable () -> Void] = state.withLock { state in
            switch change {
            case .change(_, let properties):
                return properties.flatMap { property in
                    state.signals.filter { name, _ in name == property.name || name.hasPrefix(property.name + ".") }
                        .flatMap { $0.value.values }
                }
            case .deleted:
                return state.signals.values.flatMap(\.values)
            case .error:
                return []
            }
        }
        signals.forEach { $0() }
    }
}
