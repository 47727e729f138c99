import Foundation
@testable import Chronicle

/// Helpers for the replay tests: journals made from random histories, the
/// states a plain fold gives, and a deterministic clock.
enum ReplayFixtures {
    /// A file journal holding `commits`, closed.
    static func journal(_ commits: [Commit], name: String = #function) throws -> URL {
        let url = try JournalFixtures.journalURL(name)
        let journal = try Journal(fileURL: url, durability: .none)
        for commit in commits { try journal.append(commit) }
        try journal.close()
        return url
    }

    /// The states after each prefix of `commits`: `states[v]` is the fold of the first `v`.
    static func prefixStates(_ commits: [Commit]) throws -> [StoreState] {
        var states = [StoreState()]
        for commit in commits { states.append(try states.last!.applying(commit).state) }
        return states
    }

    /// A store over a journal of `count` random commits (``RandomHistory``)
    /// with dense in-memory checkpoints (every 16 events, at most 8) and no
    /// checkpoint file, `adjust` applied to its policy first; with the
    /// commits and the state after each prefix of them, for comparing time
    /// travel with fresh folds.
    static func timeTravelStore(seed: UInt64, count: Int, name: String = #function,
                                adjust: (inout Store.CheckpointPolicy) -> Void = { _ in })
        throws -> (store: Store, commits: [Commit], expected: [StoreState]) {
        let commits = RandomHistory.commits(seed: seed, count: count)
        let url = try journal(commits, name: name)
        var configuration = Store.Configuration(fileURL: url)
        configuration.checkpoints = .init(interval: 16, maximumInMemory: 8, usesFile: false)
        adjust(&configuration.checkpoints)
        return (try Store(configuration: configuration), commits, try prefixStates(commits))
    }

    /// A clock that ticks one second per call from 2026-01-01T00:00:00Z.
    static func clock() -> @Sendable () -> Date {
        let tick = Locked(0)
        return {
            let n = tick.withLock { value -> Int in
                value += 1
                return value
            }
            return Date(timeIntervalSince1970: 1_767_225_600 + Double(n))
        }
    }
}
