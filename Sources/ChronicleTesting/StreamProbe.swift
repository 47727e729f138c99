import Testing

/// Consumes a change stream from the moment it is made, so a test can await
/// the next change (or the next few) with a timeout that fails the test
/// instead of hanging, and can expect that no change comes.
///
/// ```swift
/// let probe = StreamProbe(person.changes(keyPaths: [\.firstName]))
/// try store.write { person.firstName = "Bob" }
/// let change = await probe.next()          // fails the test after 5 s
/// try store.write { person.lastName = "Smith" }
/// await probe.expectNoChange()             // not observed: nothing arrives
/// ```
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

    /// A probe that starts consuming `stream` now.
    public init(_ stream: some AsyncSequence<Element, Never> & Sendable) {
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
    public init() { consumer = nil }

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
    ///   — "Timed out after 5.0 seconds waiting for a change" or "The stream
    ///   ended before delivering a change" — or when the test was cancelled.
    public func next(timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation) async -> Element? {
        switch await buffer.next(timeout: timeout) {
        case .element(let element):
            return element
        case .timedOut:
            Issue.record("Timed out after \(timeout) waiting for a change", sourceLocation: sourceLocation)
        case .finished:
            Issue.record("The stream ended before delivering a change", sourceLocation: sourceLocation)
        case .cancelled:
            break
        }
        return nil
    }

    /// The next `count` elements, waiting up to `timeout` for all of them.
    ///
    /// - Returns: `count` elements; fewer after recording an issue at the
    ///   caller ("Timed out after 5.0 seconds waiting for 3 changes; received
    ///   1: …") when they do not all arrive in time.
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
                Issue.record("\(reason) waiting for \(count) changes; received \(received.count)\(Self.list(received))",
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
            Issue.record("Expected no change within \(window), but received \(arrived.count)\(Self.list(arrived))",
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
            Issue.record("Expected the stream to end, but it delivered \(element)", sourceLocation: sourceLocation)
        case .timedOut:
            Issue.record("Expected the stream to end within \(timeout), but it is still open", sourceLocation: sourceLocation)
        }
    }

    private static func list(_ elements: [Element]) -> String {
        elements.isEmpty ? "" : ": " + elements.map { "\($0)" }.joined(separator: "; ")
    }
}
