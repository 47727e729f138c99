import Chronicle
import Foundation
import GRDB

/// W5's commit-to-wake against the hand-written `TransactionObserver`
/// (`ScoreRouter`), both in one process and one loop: each step makes a
/// Chronicle commit and waits for its stream's consumer, then a GRDB
/// commit and waits for the router's handler (the other way round every
/// other step). Each latency is timed alone, as W5 times it.
///
/// Interleaved, both wakes meet the machine in one state: the same
/// threads of the same pool (Swift's global executor and a dispatch queue
/// are both served by Dispatch's root queues here), the same idle vCPU to
/// wake. W5's own rounds run the sides in turn, in processes of their own,
/// and on two vCPUs their p99s move with which vCPU ran the woken thread
/// and how deep it slept (Performance, Targets), by more than either
/// side's work.
extension ObservationWorkload {
    struct InterleavedWakes {
        var chronicle: [Duration]
        var router: [Duration]
        /// How long each side's write call took (the commit, before the wake).
        var chronicleCommits: [Duration] = []
        var routerCommits: [Duration] = []
    }

    static func interleavedWakes(_ data: [PlayerData], observed: [Int], directory: URL, commits: Int) throws -> InterleavedWakes {
        let store = try ChronicleSide.open(directory.appendingPathComponent("interleaved.journal"), durability: .none)
        try ChronicleSide.seed(data, into: store)
        let handles = observed.map { store.object(ofType: Player.self, forPrimaryKey: $0)! }
        let pool = try GRDBSide.open(directory.appendingPathComponent("interleaved.sqlite").path, synchronous: .normal)
        try GRDBSide.createSchema(pool)
        try GRDBSide.seed(data, into: pool)

        let chronicleSignal = WakeSignal(), routerSignal = WakeSignal()
        let tasks = observeScores(of: handles, signal: chronicleSignal)
        defer { tasks.forEach { $0.cancel() } }
        let router = makeRouter(for: observed, signal: routerSignal, queue: DispatchQueue(label: "observations"))
        pool.add(transactionObserver: router, extent: .observerLifetime)
        defer { pool.remove(transactionObserver: router) }

        var value = 0
        var chronicleCommits: [Duration] = [], routerCommits: [Duration] = []
        let clock = ContinuousClock()
        func chronicleStep(_ index: Int) {
            value += 1
            let player = handles[index % handles.count], v = value
            chronicleSignal.arm(index % handles.count)
            chronicleCommits.append(clock.measure { try! store.write { player.score = -v } })
            chronicleSignal.waitForWake()
        }
        func routerStep(_ index: Int) {
            value += 1
            let id = observed[index % observed.count], v = value
            routerSignal.arm(index % observed.count)
            routerCommits.append(clock.measure {
                try! pool.write { db in
                    let statement = try db.cachedStatement(sql: "UPDATE player SET score = ? WHERE id = ?")
                    statement.setUncheckedArguments([-v, id])
                    try statement.execute()
                }
            })
            routerSignal.waitForWake()
        }
        func step(_ index: Int) {
            if index % 2 == 0 {
                chronicleStep(index)
                routerStep(index)
            } else {
                routerStep(index)
                chronicleStep(index)
            }
        }
        for i in 0..<50 { step(i) }
        chronicleSignal.reset()
        routerSignal.reset()
        chronicleCommits = []
        routerCommits = []
        for i in 0..<commits { step(i) }
        return InterleavedWakes(chronicle: chronicleSignal.latencies, router: routerSignal.latencies,
                                chronicleCommits: chronicleCommits, routerCommits: routerCommits)
    }
}
