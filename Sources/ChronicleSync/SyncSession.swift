import Chronicle
import Foundation
import Synchronization

/// Keeps a store in step with a *scope* (one shared store) on a
/// `chronicle-server`, offline first.
///
/// ```swift
/// let session = SyncSession(store: store, server: URL(string: "https://sync.example.com")!,
///                           scope: "todo", token: token)
/// session.start()
/// try store.write { store.add(item) }       // never waits for the network
/// try await session.waitUntilUploaded()
/// ```
///
/// Local writes go to the store's journal as always; the session pushes
/// them in the background, pulls what other devices pushed (long-polling
/// the server), and rebases this device's commits that the server has not
/// accepted yet over the ones it ordered first. Observers see remote and
/// rebased changes exactly as they see local writes. The server's order is
/// the truth: every device converges to the fold of it. See the article
/// "Syncing across devices" for the conflict rule.
///
/// Progress (the server commits applied, the local commits not yet
/// accepted and the ids they are pushed under) is kept in a folder next to
/// the journal, `<journal>.sync/`, so a killed app resumes where it was and
/// never pushes a commit twice. A store without a file keeps it in memory.
public final class SyncSession: Sendable {
    /// The store this session syncs.
    public let store: Store
    /// The server's base URL, such as `http://127.0.0.1:8080`.
    public let server: URL
    /// The scope: which shared store on the server this one follows.
    public let scope: String
    let transport: SyncTransport
    let folder: URL?

    private struct Shared {
        var state: SyncState = .disconnected
        var listeners: [UInt64: AsyncStream<SyncState>.Continuation] = [:]
        var nextListener: UInt64 = 0
        var loop: Task<Void, Never>?
        var currentPull: Task<SyncWire.Pull, any Error>?
        /// The local journal version through which every local commit is on the server.
        var uploadedThrough: UInt64 = 0
        /// Calls of `waitUntilDownloaded()` so far, and how many of them a
        /// pull that started after them has served (caught up with the server).
        var downloadRequests: UInt64 = 0
        var downloadsServed: UInt64 = 0
        var permanentError: SyncError?
        var running = false
        /// What the puller brought and the loop has not taken in yet, with
        /// the download requests each pull was made after.
        var inbox: [(pull: SyncWire.Pull, requested: UInt64)] = []
        /// The scope version the session's copy of the scope is at: the next pull is for what follows.
        var mirrorVersion: UInt64 = 0
        /// Whether the last pull found nothing newer on the server: the next one may wait.
        var caughtUp = false
    }
    private let shared = Mutex(Shared())

    /// A session for `store`, not started.
    ///
    /// - Parameters:
    ///   - store: The store to keep in step; one session per store.
    ///   - server: The server's base URL.
    ///   - scope: The scope's name: 1 to 128 letters, digits, `.`, `_` or `-`.
    ///   - token: A bearer token the server grants this scope (read-write to push).
    public init(store: Store, server: URL, scope: String, token: String) {
        self.store = store
        self.server = server
        self.scope = scope
        transport = SyncTransport(server: server, scope: scope, token: token)
        folder = store.configuration.fileURL.map { URL(fileURLWithPath: $0.path + ".sync") }
    }

    // MARK: Public API

    /// What the session is doing: yields the current state at once, then
    /// every change, until the session is stopped.
    public var states: AsyncStream<SyncState> {
        AsyncStream { continuation in
            let id = shared.withLock { shared in
                let id = shared.nextListener
                shared.nextListener += 1
                shared.listeners[id] = continuation
                continuation.yield(shared.state)
                return id
            }
            continuation.onTermination = { [weak self] _ in
                _ = self?.shared.withLock { $0.listeners.removeValue(forKey: id) }
            }
        }
    }

    /// The current state.
    public var state: SyncState { shared.withLock { $0.state } }

    /// Starts syncing in the background. Calling it again while running does nothing.
    public func start() {
        shared.withLock { shared in
            guard !shared.running else { return }
            shared.running = true
            shared.permanentError = nil
            shared.loop = Task.detached { [self] in await self.run() }
        }
    }

    /// Stops syncing: stops waiting for the requests in flight, whose
    /// answers are then ignored (a long-poll left on the server ends there
    /// within its wait; a push may still land, and the next ``start()``
    /// finds it there). Local writes go on; the next ``start()`` pushes
    /// them. Progress is already on disk.
    public func stop() {
        let loop = shared.withLock { shared in
            shared.running = false
            shared.currentPull?.cancel()
            defer { shared.loop = nil }
            return shared.loop
        }
        loop?.cancel()
        publish(.disconnected)
    }

    /// Returns once every commit this store had when it was called is on
    /// the server.
    ///
    /// - Throws: The session's ``SyncError`` if it stopped on a permanent
    ///   one, or `CancellationError` when the calling task is cancelled.
    public func waitUntilUploaded() async throws {
        let target = store.version
        try await waitUntil { $0.uploadedThrough >= target }
    }

    /// Returns once every commit the server had when it was called is
    /// applied to this store.
    ///
    /// - Throws: as ``waitUntilUploaded()``.
    public func waitUntilDownloaded() async throws {
        // Served by a pull that starts after this call (without waiting) and
        // finds nothing newer than what the session then applied.
        let request = shared.withLock { shared in
            shared.downloadRequests += 1
            shared.currentPull?.cancel()
            return shared.downloadRequests
        }
        try await waitUntil { $0.downloadsServed >= request }
    }

    private func waitUntil(_ condition: @Sendable (Shared) -> Bool) async throws {
        while true {
            let (done, error) = shared.withLock { (condition($0), $0.permanentError) }
            if done { return }
            if let error { throw error }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: State

    private func publish(_ state: SyncState) {
        shared.withLock { shared in
            guard shared.state != state else { return }
            shared.state = state
            for listener in shared.listeners.values { listener.yield(state) }
        }
    }

    /// The metadata key that marks the commits a session writes to bring in
    /// the server's: its value is the server version they bring the store to.
    static let syncMetadataKey = "chronicle.sync.server"

    // MARK: Loop

    private typealias Signal = AsyncStream<Void>.Continuation

    /// Opens the session's bookkeeping, then runs two tasks until stopped:
    /// the loop, which takes in what was pulled, rebases and pushes, woken
    /// by each local commit (a store commit listener) and by each pull; and
    /// the puller, which keeps a long-poll waiting on the server. A push
    /// goes out on its own connection while the long-poll waits.
    private func run() async {
        var engine: SyncEngine
        // A session stopped just before may still be closing the mirror: give it a moment.
        var attempts = 0
        while true {
            do {
                engine = try SyncEngine(store: store, folder: folder)
                break
            } catch let error as JournalError where error.isLocked && attempts < 200 && !Task.isCancelled {
                attempts += 1
                try? await Task.sleep(for: .milliseconds(25))
            } catch {
                fail(.local("\(error)"))
                return
            }
        }
        defer { engine.close() }
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (taken, take) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let listener = store.addCommitListener { _ in wake.yield() }
        defer { store.removeCommitListener(listener) }
        let bootstrap = engine.canBootstrap
        shared.withLock {
            $0.uploadedThrough = engine.uploadedThrough
            $0.mirrorVersion = engine.serverVersion
            $0.caughtUp = false
            $0.inbox = []
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.pullLoop(bootstrap: bootstrap, wake: wake, taken: taken) }
            await loop(&engine, wakes: wakes, wake: wake, take: take)
            group.cancelAll()
        }
        // A step stopped before its push leaves the last rebase's progress unsaved.
        try? engine.saveProgress()
    }

    /// One step per wake-up (local commits, a pull, a retry), in order.
    private func loop(_ engine: inout SyncEngine, wakes: AsyncStream<Void>, wake: Signal, take: Signal) async {
        var pause: Duration = .milliseconds(50)
        var first = true
        wake.yield()
        for await _ in wakes {
            if Task.isCancelled || shared.withLock({ $0.permanentError != nil }) { return }
            do {
                try await step(&engine, first: first, take: take)
                first = false
                pause = .milliseconds(50)
            } catch {
                if Task.isCancelled { return }
                let error = error as? SyncError ?? .local("\(error)")
                if error.isPermanent {
                    fail(error)
                    return
                }
                publish(.error(error))
                try? engine.saveProgress()
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(2))
                wake.yield()
            }
        }
    }

    /// Keeps one pull waiting on the server (long-polling unless a
    /// `waitUntilDownloaded()` wants an answer now), hands each answer to
    /// the loop, and pulls again once the loop has taken it in.
    private func pullLoop(bootstrap: Bool, wake: Signal, taken: AsyncStream<Void>) async {
        var pause: Duration = .milliseconds(50)
        var takenIterator = taken.makeAsyncIterator()
        let transport = self.transport
        while !Task.isCancelled {
            // The pull is made and made current under the same lock as the
            // requests are read: a `waitUntilDownloaded()` either comes
            // before (and this pull does not wait) or finds this pull to cut
            // short. (Made current after the lock, a request in between
            // cancelled nothing, and a long-poll with nothing newer to
            // answer kept it waiting up to the long-poll's 25 s.)
            let (pullTask, requested) = shared.withLock { shared in
                let after = shared.mirrorVersion, requested = shared.downloadRequests
                // Long-poll only once caught up, and not for a `waitUntilDownloaded()` waiting.
                let wait = shared.caughtUp && requested <= shared.downloadsServed ? 25 : 0
                let pullTask = Task { () async throws -> SyncWire.Pull in
                    try await transport.pull(after: after, wait: wait, bootstrap: bootstrap && after == 0)
                }
                shared.currentPull = pullTask
                return (pullTask, requested)
            }
            let pulled: SyncWire.Pull
            do {
                pulled = try await withTaskCancellationHandler { try await pullTask.value } onCancel: { pullTask.cancel() }
            } catch {
                shared.withLock { $0.currentPull = nil }
                if Task.isCancelled { return }
                // Cut short by `waitUntilDownloaded()`: pull again, without waiting.
                if pullTask.isCancelled { continue }
                let error = error as? SyncError ?? .local("\(error)")
                if error.isPermanent {
                    fail(error)
                    wake.yield()
                    return
                }
                publish(.error(error))
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(2))
                continue
            }
            pause = .milliseconds(50)
            shared.withLock {
                $0.currentPull = nil
                $0.inbox.append((pulled, requested))
            }
            if case .disconnected = state { publish(.connected) }
            if case .error = state { publish(.connected) }
            wake.yield()
            guard await takenIterator.next() != nil else { return }
        }
    }

    private func fail(_ error: SyncError) {
        shared.withLock {
            $0.permanentError = error
            $0.running = false
        }
        publish(.error(error))
    }

    /// Takes in what was pulled, rebases when the scope or the store moved
    /// on, and pushes what is ready.
    private func step(_ engine: inout SyncEngine, first: Bool, take: Signal) async throws {
        let inbox = shared.withLock { shared in
            defer { shared.inbox = [] }
            return shared.inbox
        }
        var served: UInt64?
        let before = engine.serverVersion
        if !inbox.isEmpty {
            // Whatever happens, the puller goes on from what the copy of the scope holds.
            defer {
                shared.withLock {
                    $0.mirrorVersion = engine.serverVersion
                    $0.caughtUp = engine.isCaughtUp
                }
                take.yield()
            }
            for (pulled, requested) in inbox {
                if !pulled.commits.isEmpty || pulled.snapshot != nil { publish(.downloading(pulled.commits.count)) }
                try engine.absorb(pulled)
                if engine.isCaughtUp && pulled.head <= engine.serverVersion { served = max(served ?? 0, requested) }
            }
        }
        // Pending commits with nothing rebased to push (after a conflict, or
        // a relaunch) are rebased once the session knows the scope's head.
        // (This device's own commits coming back from the server move nothing.)
        let scopeMoved = engine.serverVersion != before
        let stale = engine.pendingCount > 0 && !engine.hasRebasedPushes && engine.isCaughtUp
        if first || scopeMoved || stale || store.version > engine.progress.scannedThrough {
            try engine.rebaseAndCollect(store: store)
        }
        while engine.hasWorkToPush && engine.isCaughtUp {
            try await upload(&engine)
        }
        try engine.saveProgress()
        shared.withLock { shared in
            shared.uploadedThrough = max(shared.uploadedThrough, engine.uploadedThrough)
            shared.mirrorVersion = engine.serverVersion
            shared.caughtUp = engine.isCaughtUp
            if let served { shared.downloadsServed = max(shared.downloadsServed, served) }
        }
        if engine.isCaughtUp && !engine.hasWorkToPush && engine.pendingCount == 0 { publish(.upToDate) }
    }

    /// One push of the rebased commits.
    private func upload(_ engine: inout SyncEngine) async throws {
        let commits = engine.wireCommits()
        publish(.uploading(commits.count))
        switch try await transport.push(base: engine.serverVersion, commits: commits) {
        case .accepted(let versions, let found):
            try engine.accepted(versions: versions, found: found)
        case .conflict:
            engine.conflicted()
        }
        shared.withLock { $0.uploadedThrough = max($0.uploadedThrough, engine.uploadedThrough) }
    }
}
