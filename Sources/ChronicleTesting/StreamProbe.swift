import Chronicle
import Testing

/// Consumes a change stream from the moment it is made, so a test can await
/// the next change (or the next few) with a timeout that fails the test
/// instead of hanging, and can expect that no change comes.
///
/// ```swift
/// let probe = StreamProbe(person.changes(keyPaths: [\.firstName]))
/// try store.write { person.firstName = "Bob" }
/// let change = try await probe.nextChange()    // fails the test after 5 s
/// try store.write { person.lastName = "Smith" }
/// await probe.expectNoChange()                 // not observed: nothing arrives
///
/// let rows = StreamProbe(store.objects(Dog.self).changes())
/// try store.write { store.add(Dog()) }
/// let update = try await rows.nextUpdate()     // passes over the initial value
/// #expect(update.insertions == [0])
/// ```
///
/// The `require` forms read like `#require`: they return what arrived or
/// record one issue at the caller — naming the stream and where the probe
/// was made — and throw, ending the test. The `next` and `expect` forms
/// record the issue and return.
///
/// The probe owns the stream's iteration: a task started by the initializer
/// reads every element into a buffer, so nothing is lost between waits and
/// no iterator is dropped when a wait times out. The stream's own rules
/// still apply: commits made before the probe reads the first of them may
/// coalesce into one change (object streams) or one update (collection
/// streams), so await each change before making the next commit when a test
/// counts them.
///
/// Works with any stream that does not throw: ``Chronicle/ObjectChanges``
/// (objects and projections), ``Chronicle/CollectionChanges`` (results,
/// lists, sets, maps, projected collections). For a callback API such as
/// `observe(keyPaths:_:)`, make an empty probe and ``record(_:)`` from the
/// callback.
///
/// Dropping the probe (or ``cancel()``) cancels the consuming task, which
/// ends the stream and removes its registration.
public final class StreamProbe<Element: Sendable>: Sendable {
    private let buffer = ProbeBuffer<Element>()
    private let consumer: Task<Void, Never>?
    /// The stream and where the probe was made, for messages:
    /// `ObjectChanges<Person> (probe made at PersonTests.swift:12)`.
    public let source: String

    /// A probe that starts consuming `stream` now.
    ///
    /// - Parameter sourceLocation: Where the probe is made; messages name it.
    public init(_ stream: some AsyncSequence<Element, Never> & Sendable, sourceLocation: SourceLocation = #_sourceLocation) {
        source = "\(type(of: stream)) (probe made at \(sourceLocation.fileName):\(sourceLocation.line))"
        let buffer = self.buffer
        consumer = Task {
            for await element in stream { buffer.push(element) }
            buffer.finish()
        }
    }

    /// A probe fed by hand with ``record(_:)``, e.g. from an `observe` callback:
    ///
    /// ```swift
    /// let probe = StreamProbe<ObjectChange<Person>>()
    /// let token = person.observe(keyPaths: ["firstName"]) { probe.record($0) }
    /// ```
    ///
    /// - Parameter sourceLocation: Where the probe is made; messages name it.
    public init(sourceLocation: SourceLocation = #_sourceLocation) {
        source = "the probe made at \(sourceLocation.fileName):\(sourceLocation.line)"
        consumer = nil
    }

    deinit { consumer?.cancel() }

    /// Adds an element, as if the stream had delivered it.
    public func record(_ element: Element) { buffer.push(element) }

    /// Ends a hand-fed probe: later waits see the end of the stream.
    public func finish() { buffer.finish() }

    /// Stops consuming the stream; elements already received stay readable.
    public func cancel() { consumer?.cancel() }

    /// Elements received and not yet returned by ``next(timeout:sourceLocation:)``.
    public var pending: [Element] { buffer.pending }

    /// Whether the stream has ended and every element was read.
    public var isFinished: Bool { buffer.isFinished }

    /// The next element, waiting up to `timeout` for it.
    ///
    /// - Returns: The element; `nil` after recording an issue at the caller
    ///   — "Timed out after 5.0 seconds waiting for a change from
    ///   ObjectChanges<Person> (probe made at PersonTests.swift:12)" or
    ///   "… ended before delivering a change" — or when the test was cancelled.
    public func next(timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation) async -> Element? {
        let outcome = await buffer.next(timeout: timeout)
        if case .element(let element) = outcome { return element }
        if let message = failure(outcome, waitingFor: .any, timeout: timeout) {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
        return nil
    }

    /// The next element, which must be of `kind`; like `#require`, a
    /// failure records one issue at the caller and throws.
    ///
    /// ```swift
    /// try await probe.require(.initial)
    /// guard case .update(let rows, _, let insertions, _) = try await probe.require(.update) else { return }
    /// ```
    ///
    /// - Returns: The element.
    /// - Throws: After recording "Timed out after 5.0 seconds waiting for an
    ///   update from CollectionChanges<Results<Dog>> (probe made at
    ///   DogTests.swift:8)", "Expected an update from …, but it delivered
    ///   change of Dog#1 (…)" or "… ended before delivering an update";
    ///   `CancellationError` when the test was cancelled.
    @discardableResult
    public func require(_ kind: ChangeKind = .any, timeout: Duration = .seconds(5),
                        sourceLocation: SourceLocation = #_sourceLocation) async throws -> Element {
        try await require(kind, timeout: timeout, until: ContinuousClock.now + timeout, sourceLocation: sourceLocation)
    }

    /// ``require(_:timeout:sourceLocation:)`` with a deadline shared by several waits.
    func require(_ kind: ChangeKind, timeout: Duration, until deadline: ContinuousClock.Instant,
                 sourceLocation: SourceLocation) async throws -> Element {
        let outcome = await buffer.next(timeout: max(deadline - ContinuousClock.now, .zero))
        if case .element(let element) = outcome {
            guard kind == .any || (element as? any ProbedChange)?.changeKind == kind else {
                try Self.fail("Expected \(kind) from \(source), but it delivered \(probeDescription(element))", sourceLocation)
            }
            return element
        }
        guard let message = failure(outcome, waitingFor: kind, timeout: timeout) else { throw CancellationError() }
        try Self.fail(message, sourceLocation)
    }

    /// Why a wait that did not receive an element failed; `nil` when the test was cancelled.
    private func failure(_ outcome: ProbeBuffer<Element>.Outcome, waitingFor kind: ChangeKind, timeout: Duration) -> String? {
        switch outcome {
        case .timedOut: "Timed out after \(timeout) waiting for \(kind) from \(source)"
        case .finished: "\(source.prefix(1).uppercased() + source.dropFirst()) ended before delivering \(kind)"
        case .element, .cancelled: nil
        }
    }

    /// Records `message` at `sourceLocation` as `#require` would, and
    /// throws the error `#require` throws — one the test runner does not
    /// record again.
    static func fail(_ message: String, _ sourceLocation: SourceLocation) throws -> Never {
        let probeReceivedWhatWasRequired = false
        try #require(probeReceivedWhatWasRequired, Comment(rawValue: message), sourceLocation: sourceLocation)
        preconditionFailure("#require(false) throws")
    }

    /// The next `count` elements, waiting up to `timeout` for all of them.
    ///
    /// - Returns: `count` elements; fewer after recording an issue at the
    ///   caller ("Timed out after 5.0 seconds waiting for 3 changes from …;
    ///   received 1: …") when they do not all arrive in time.
    public func next(_ count: Int, timeout: Duration = .seconds(5),
                     sourceLocation: SourceLocation = #_sourceLocation) async -> [Element] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var received: [Element] = []
        while received.count < count {
            let outcome = await buffer.next(timeout: max(deadline - clock.now, .zero))
            guard case .element(let element) = outcome else {
                let reason = switch outcome {
                case .finished: "The stream ended"
                case .cancelled: "The test was cancelled"
                default: "Timed out after \(timeout)"
                }
                Issue.record("\(reason) waiting for \(count) changes from \(source); received \(received.count)\(Self.list(received))",
                             sourceLocation: sourceLocation)
                return received
            }
            received.append(element)
        }
        return received
    }

    /// Waits for `window` and records an issue at the caller if any element
    /// arrived ("Expected no change within 0.1 seconds, but received 1: …").
    /// Elements that arrived stay ``pending``.
    public func expectNoChange(within window: Duration = .milliseconds(100),
                               sourceLocation: SourceLocation = #_sourceLocation) async {
        try? await Task.sleep(for: window)
        let arrived = buffer.pending
        if !arrived.isEmpty {
            Issue.record("Expected no change from \(source) within \(window), but received \(arrived.count)\(Self.list(arrived))",
                         sourceLocation: sourceLocation)
        }
    }

    /// Waits up to `timeout` for the stream to end, recording an issue at the
    /// caller if it delivers an element instead ("Expected the stream to end,
    /// but it delivered …") or is still open.
    public func expectFinished(within timeout: Duration = .seconds(5),
                               sourceLocation: SourceLocation = #_sourceLocation) async {
        switch await buffer.next(timeout: timeout) {
        case .finished, .cancelled:
            break
        case .element(let element):
            Issue.record("Expected \(source) to end, but it delivered \(probeDescription(element))", sourceLocation: sourceLocation)
        case .timedOut:
            Issue.record("Expected \(source) to end within \(timeout), but it is still open", sourceLocation: sourceLocation)
        }
    }

    private static func list(_ elements: [Element]) -> String {
        elements.isEmpty ? "" : ": " + elements.map(probeDescription).joined(separator: "; ")
    }
}

extension StreamProbe {
    /// The next update of a collection stream, passing over the stream's
    /// initial value; like ``require(_:timeout:sourceLocation:)``, a failure
    /// records one issue at the caller and throws.
    ///
    /// ```swift
    /// let rows = StreamProbe(model.rows.changes())
    /// try await model.add("Buy milk")
    /// let update = try await rows.nextUpdate()
    /// #expect(update.insertions == [0])
    /// ```
    public func nextUpdate<Collection>(timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> CollectionUpdate<Collection> where Element == CollectionChange<Collection> {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch try await require(.any, timeout: timeout, until: deadline, sourceLocation: sourceLocation) {
            case .initial:
                continue
            case let .update(collection, deletions, insertions, modifications):
                return CollectionUpdate(collection: collection, deletions: deletions, insertions: insertions,
                                        modifications: modifications)
            case .error(let error):
                try Self.fail("Expected an update from \(source), but it delivered error \(error)", sourceLocation)
            }
        }
    }

    /// The next change of an object stream: the object and its changed
    /// properties. Like ``require(_:timeout:sourceLocation:)``, a failure
    /// (a deletion, a timeout) records one issue at the caller and throws.
    ///
    /// ```swift
    /// let change = try await probe.nextChange()
    /// #expect(change.properties.map(\.name) == ["firstName"])
    /// ```
    public func nextChange<Object>(timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> (object: Object, properties: [PropertyChange]) where Element == ObjectChange<Object> {
        guard case let .change(object, properties) = try await require(.change, timeout: timeout, sourceLocation: sourceLocation) else {
            preconditionFailure("require(.change) returns a change")
        }
        return (object, properties)
    }
}
