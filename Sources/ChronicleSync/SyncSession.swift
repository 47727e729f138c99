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
        var watcher: Task<Void, Never>?
        var currentPull: Task<SyncWire.Pull, any Error>?
        /// The local journal version through which every local commit is on the server.
        var uploadedThrough: UInt64 = 0
        /// Calls of `waitUntilDownloaded()` so far, and how many of them a
        /// pull that started after them has served (caught up with the server).
        var downloadRequests: UInt64 = 0
        var downloadsServed: UInt64 = 0
        var permanentError: SyncError?
        var running = false
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
            shared.watcher = Task.detached { [self] in await self.watchLocalWrites() }
        }
    }

    /// Stops syncing: cancels the request in flight. Local writes go on;
    /// the next ``start()`` pushes them. Progress is already on disk.
    public func stop() {
        let (loop, watcher) = shared.withLock { shared in
            shared.running = false
            shared.currentPull?.cancel()
            defer { shared.loop = nil; shared.watcher = nil }
            return (shared.loop, shared.watcher)
        }
        loop?.cancel()
        watcher?.cancel()
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

    /// Cuts a long-poll short when the app writes, so the write is pushed at once.
    private func watchLocalWrites() async {
        var seen = store.version
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(10))
            let now = store.version
            if now != seen {
                seen = now
                shared.withLock { $0.currentPull?.cancel() }
            }
        }
    }

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
        shared.withLock { $0.uploadedThrough = engine.uploadedThrough }
        var pause: Duration = .milliseconds(50)
        while !Task.isCancelled {
            do {
                try await cycle(&engine)
                pause = .milliseconds(50)
            } catch let error as SyncError {
                if Task.isCancelled { break }
                if error.isPermanent {
                    fail(error)
                    return
                }
                publish(.error(error))
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(2))
            } catch is CancellationError {
                continue
            } catch {
                publish(.error(.local("\(error)")))
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(2))
            }
        }
    }

    private func fail(_ error: SyncError) {
        shared.withLock {
            $0.permanentError = error
            $0.running = false
        }
        publish(.error(error))
    }

    /// One round: pull (long-polling when there is nothing to push), rebase, push.
    private func cycle(_ engine: inout SyncEngine) async throws {
        let requested = shared.withLock { $0.downloadRequests }
        let idle = !engine.hasWorkToPush && engine.isCaughtUp && requested == shared.withLock { $0.downloadsServed }
        let wait = idle ? 25 : 0
        let after = engine.serverVersion
        let bootstrap = engine.canBootstrap
        let transport = self.transport
        let pullTask = Task { () async throws -> SyncWire.Pull in
            try await transport.pull(after: after, wait: wait, bootstrap: bootstrap)
        }
        shared.withLock { $0.currentPull = pullTask }
        let pulled: SyncWire.Pull
        do {
            pulled = try await pullTask.value
        } catch let error as SyncError {
            shared.withLock { $0.currentPull = nil }
            // A pull cut short by a local write: go and push it.
            if pullTask.isCancelled && !Task.isCancelled {
                try engine.rebaseAndCollect(store: store)
                try await upload(&engine)
                return
            }
            throw error
        }
        shared.withLock { $0.currentPull = nil }
        if case .disconnected = state { publish(.connected) }
        if case .error = state { publish(.connected) }
        if !pulled.commits.isEmpty || pulled.snapshot != nil { publish(.downloading(pulled.commits.count)) }
        try engine.absorb(pulled)
        try engine.rebaseAndCollect(store: store)
        try await upload(&engine)
        if engine.isCaughtUp && pulled.head <= engine.serverVersion {
            shared.withLock { $0.downloadsServed = max($0.downloadsServed, requested) }
            if !engine.hasWorkToPush && engine.pendingCount == 0 {
                shared.withLock { $0.uploadedThrough = max($0.uploadedThrough, engine.uploadedThrough) }
                publish(.upToDate)
            }
        }
    }

    private func upload(_ engine: inout SyncEngine) async throws {
        guard engine.hasWorkToPush else {
            shared.withLock { $0.uploadedThrough = max($0.uploadedThrough, engine.uploadedThrough) }
            return
        }
        let commits = engine.wireCommits()
        publish(.uploading(commits.count))
        switch try await transport.push(base: engine.serverVersion, commits: commits) {
        case .accepted(let versions):
            try engine.accepted(versions: versions)
        case .conflict:
            engine.conflicted()
        }
        shared.withLock { $0.uploadedThrough = max($0.uploadedThrough, engine.uploadedThrough) }
    }
}
