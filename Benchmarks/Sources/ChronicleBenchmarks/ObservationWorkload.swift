import Chronicle
import Foundation
import GRDB

/// W5: 1,000 observers on 1,000 different players of 10k; one keyed score
/// update per commit. Commits are not synced per commit (`.none` /
/// `synchronous = NORMAL`) so the figures are the observation machinery's,
/// not the disk's.
///
/// Commit-to-wake latency: from just before the write call to the moment the
/// matched observer's code runs (an async stream's consumer task for
/// Chronicle; the `onChange` closure on a dispatch queue for GRDB). The next
/// commit starts only after the wake, so latencies do not overlap.
enum ObservationWorkload {
    static let w5 = Workload(
        id: "W5", summary: "1,000 observers on 1,000 of 10k players; one keyed score update per commit; an unobserved name update",
        sides: Side.allCases, prepare: nil
    ) { side, options in
        let data = PlayerData.generate(options.observedPlayers)
        let stride = data.count / options.observers
        let observed = (0..<options.observers).map { $0 * stride }
        let directory = try freshDirectory(in: options.directory, "w5")
        defer { try? FileManager.default.removeItem(at: directory) }
        switch side {
        case .chronicle: return try chronicle(data, observed: observed, directory: directory, options: options)
        case .grdb: return try grdb(data, observed: observed, directory: directory, options: options)
        }
    }

    static func names(_ options: Options) -> (wake: String, bare: String, score: String, name: String, wakes: String) {
        let n = options.observers
        return ("W5 commit-to-wake", "W5 commit (score), no observers", "W5 commit (score), \(n) observers",
                "W5 commit (unobserved name), \(n) observers", "W5 wakes from name commits")
    }

    static let bareName = "W5 commit (name), no observers"
    static let interleavedChronicleName = "W5 commit-to-wake, interleaved"
    static let interleavedRouterName = "W5 router's commit-to-wake, interleaved"

    // MARK: Chronicle

    static func chronicle(_ data: [PlayerData], observed: [Int], directory: URL, options: Options) throws -> [Figure] {
        let store = try ChronicleSide.open(directory.appendingPathComponent("players.journal"), durability: .none)
        try ChronicleSide.seed(data, into: store)
        let handles = observed.map { store.object(ofType: Player.self, forPrimaryKey: $0)! }
        let commits = options.observedCommits * options.slowRuns
        let signal = WakeSignal()
        var value = 0
        func commit(_ index: Int, name: Bool) -> Duration {
            value += 1
            let player = handles[index % handles.count]
            let v = value
            signal.arm(index % handles.count)
            return ContinuousClock().measure {
                try! store.write {
                    if name { player.name = "n\(v)" } else { player.score = -v }
                }
            }
        }
        // Without observers (warm-up first).
        for i in 0..<50 { _ = commit(i, name: false) }
        let bare = (0..<commits).map { commit($0, name: false) }
        let bareNames = (0..<commits).map { commit($0, name: true) }

        let tasks = observeScores(of: handles, signal: signal)
        for i in 0..<50 {
            _ = commit(i, name: false)
            signal.waitForWake()
        }
        signal.reset()
        var withObservers: [Duration] = []
        for i in 0..<commits {
            withObservers.append(commit(i, name: false))
            signal.waitForWake()
        }
        let wakes = signal.latencies
        let wakesBefore = signal.totalWakes
        let unobserved = (0..<commits).map { commit($0, name: true) }
        Thread.sleep(forTimeInterval: 0.2)
        let nameWakes = signal.totalWakes - wakesBefore
        tasks.forEach { $0.cancel() }
        // The target's measure with the sides in one loop (see `interleavedWakes`).
        let interleaved = try interleavedWakes(data, observed: observed, directory: directory, commits: commits)
        let n = names(options)
        return [
            .latencies(n.wake, wakes),
            .times(n.bare, bare),
            .times(bareName, bareNames),
            .times(n.score, withObservers),
            .times(n.name, unobserved),
            .count(n.wakes, nameWakes),
            .times(interleavedChronicleName, interleaved.chronicle),
            .times(interleavedRouterName, interleaved.router, note: "one TransactionObserver routing row ids"),
            .ratio("W5 p99 router over Chronicle, interleaved",
                   Measure.seconds(Measure.percentile(interleaved.router, 0.99)) / Measure.seconds(Measure.percentile(interleaved.chronicle, 0.99))),
        ]
    }

    /// One `changes(keyPaths: [\.score])` stream per player, each consumed
    /// by a task of its own that tells `signal` its player's index.
    static func observeScores(of handles: [Player], signal: WakeSignal) -> [Task<Void, Never>] {
        handles.enumerated().map { index, player in
            let stream = player.changes(keyPaths: [\.score])
            return Task.detached {
                for await change in stream {
                    if case .change = change { signal.woke(index) }
                }
            }
        }
    }

    /// The expert's router over `observed` players' ids, its handlers
    /// telling `signal` their player's index.
    static func makeRouter(for observed: [Int], signal: WakeSignal, queue: DispatchQueue) -> ScoreRouter {
        var handlers: [Int64: @Sendable (Int) -> Void] = [:]
        for (index, id) in observed.enumerated() {
            handlers[Int64(id)] = { _ in signal.woke(index) }
        }
        return ScoreRouter(handlers: handlers, queue: queue)
    }

    // MARK: GRDB

    static func grdb(_ data: [PlayerData], observed: [Int], directory: URL, options: Options) throws -> [Figure] {
        let pool = try GRDBSide.open(directory.appendingPathComponent("players.sqlite").path, synchronous: .normal)
        try GRDBSide.createSchema(pool)
        try GRDBSide.seed(data, into: pool)
        let commits = options.observedCommits * options.slowRuns
        let signal = WakeSignal()
        var value = 0
        func commit(_ index: Int, name: Bool) -> Duration {
            value += 1
            let id = observed[index % observed.count]
            let v = value
            signal.arm(index % observed.count)
            return ContinuousClock().measure {
                try! pool.write { db in
                    if name {
                        let statement = try db.cachedStatement(sql: "UPDATE player SET name = ? WHERE id = ?")
                        statement.setUncheckedArguments(["n\(v)", id])
                        try statement.execute()
                    } else {
                        let statement = try db.cachedStatement(sql: "UPDATE player SET score = ? WHERE id = ?")
                        statement.setUncheckedArguments([-v, id])
                        try statement.execute()
                    }
                }
            }
        }
        for i in 0..<50 { _ = commit(i, name: false) }
        let bare = (0..<commits).map { commit($0, name: false) }
        let bareNames = (0..<commits).map { commit($0, name: true) }
        let n = names(options)
        var figures: [Figure] = [.times(n.bare, bare), .times(bareName, bareNames)]

        // 1) One ValueObservation per player, tracking its score's region.
        let queue = DispatchQueue(label: "observations")
        let started = DispatchGroup()
        var cancellables: [AnyDatabaseCancellable] = []
        for (index, id) in observed.enumerated() {
            started.enter()
            let first = FirstFlag()
            let request = PlayerRecord.select(Column("score")).filter(id: id)
            let observation = ValueObservation
                .tracking(region: request, fetch: { db in try Int.fetchOne(db, request) })
                .removeDuplicates()
            cancellables.append(observation.start(
                in: pool, scheduling: .async(onQueue: queue),
                onError: { error in fatalError("observation failed: \(error)") },
                onChange: { _ in
                    if first.take() { started.leave() } else { signal.woke(index) }
                }))
        }
        started.wait()
        figures += measureObserved(signal, commit: commit, commits: commits, names: n, suffix: "")
        cancellables.forEach { $0.cancel() }
        cancellables = []

        // 2) What an expert writes: one TransactionObserver that routes row ids.
        let router = makeRouter(for: observed, signal: signal, queue: queue)
        pool.add(transactionObserver: router, extent: .observerLifetime)
        figures += measureObserved(signal, commit: commit, commits: commits, names: n, suffix: " #router")
        pool.remove(transactionObserver: router)
        try pool.close()
        return figures
    }

    static func measureObserved(_ signal: WakeSignal, commit: (Int, Bool) -> Duration, commits: Int,
                                names n: (wake: String, bare: String, score: String, name: String, wakes: String),
                                suffix: String) -> [Figure] {
        for i in 0..<50 {
            _ = commit(i, false)
            signal.waitForWake()
        }
        signal.reset()
        var withObservers: [Duration] = []
        for i in 0..<commits {
            withObservers.append(commit(i, false))
            signal.waitForWake()
        }
        let wakes = signal.latencies
        let wakesBefore = signal.totalWakes
        let unobserved = (0..<commits).map { commit($0, true) }
        Thread.sleep(forTimeInterval: 0.2)
        let nameWakes = signal.totalWakes - wakesBefore
        let what = suffix.isEmpty ? "ValueObservation per player" : "one TransactionObserver routing row ids"
        return [
            .latencies(n.wake + suffix, wakes, note: what),
            .times(n.score + suffix, withObservers),
            .times(n.name + suffix, unobserved),
            .count(n.wakes + suffix, nameWakes),
        ]
    }
}

/// The expert's GRDB observer: one `TransactionObserver` for every player,
/// told only about score updates, routing changed row ids to their handlers
/// after the commit with the new score.
final class ScoreRouter: TransactionObserver, @unchecked Sendable {
    // Safety: GRDB calls a transaction observer on the writer's queue only.
    private var pending: [Int64] = []
    private let handlers: [Int64: @Sendable (Int) -> Void]
    private let queue: DispatchQueue

    init(handlers: [Int64: @Sendable (Int) -> Void], queue: DispatchQueue) {
        self.handlers = handlers
        self.queue = queue
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if case .update(let table, let columns) = eventKind { return table == "player" && columns.contains("score") }
        return false
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if handlers[event.rowID] != nil { pending.append(event.rowID) }
    }

    func databaseDidCommit(_ db: Database) {
        guard !pending.isEmpty else { return }
        let ids = pending
        pending = []
        for id in ids {
            let score = try! Int.fetchOne(db.cachedStatement(sql: "SELECT score FROM player WHERE id = ?"), arguments: [id])!
            let handler = handlers[id]!
            queue.async { handler(score) }
        }
    }

    func databaseDidRollback(_ db: Database) { pending = [] }
}

/// True the first time only (an observation's initial value).
final class FirstFlag: @unchecked Sendable {
    // Safety: used from one serial queue.
    private var seen = false
    func take() -> Bool {
        defer { seen = true }
        return !seen
    }
}

/// Hands commit start times to observers and collects wake latencies.
final class WakeSignal: @unchecked Sendable {
    // Safety: guarded by `lock`.
    private let lock = NSLock()
    private let semaphore = DispatchSemaphore(value: 0)
    private var expected = -1
    private var start = ContinuousClock.now
    private var collected: [Duration] = []
    private(set) var totalWakesStorage = 0

    func arm(_ index: Int) {
        lock.lock()
        expected = index
        start = ContinuousClock.now
        lock.unlock()
    }

    func woke(_ index: Int) {
        let now = ContinuousClock.now
        lock.lock()
        totalWakesStorage += 1
        let matched = index == expected
        if matched {
            collected.append(now - start)
            expected = -1
        }
        lock.unlock()
        if matched { semaphore.signal() }
    }

    func waitForWake() {
        if semaphore.wait(timeout: .now() + 10) == .timedOut { fatalError("an observer did not wake within 10 s") }
    }

    func reset() {
        lock.lock()
        collected = []
        lock.unlock()
    }

    var latencies: [Duration] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    var totalWakes: Int {
        lock.lock()
        defer { lock.unlock() }
        return totalWakesStorage
    }
}
