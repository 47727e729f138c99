import Foundation

extension Store {
    /// ``replaying(_:through:excluding:paused:)`` with the clock that
    /// timestamps the replaying store's own later commits — a test's fixed
    /// clock, so a test that starts from a recorded journal writes the same
    /// journal on every run. Replayed commits keep their source timestamps.
    ///
    /// ```swift
    /// let replay = try Store.replaying(journal, clock: testClock.timestamp)
    /// try replay.store.write { … }   // timestamped by testClock
    /// ```
    ///
    /// - Parameters:
    ///   - journal: The journal to replay; it is only read.
    ///   - version: The last version to fold; the journal's last by default.
    ///   - excluded: Source versions to leave out.
    ///   - paused: Fold nothing yet; see ``replaying(_:through:excluding:paused:)``.
    ///   - clock: The clock of the replaying store.
    /// - Throws: as ``replaying(_:through:excluding:paused:)``.
    /// - Complexity: O(events folded).
    public static func replaying(_ journal: Journal, through version: UInt64? = nil, excluding excluded: Set<UInt64> = [],
                                 paused: Bool = false,
                                 clock: @escaping @Sendable () -> Date) throws(StoreError) -> Replay {
        let last = version ?? journal.lastVersion
        guard last <= journal.lastVersion else {
            throw .versionOutOfRange(requested: last, available: 0...journal.lastVersion)
        }
        var configuration = Configuration.inMemory(identifier: "replay of \(journal.fileURL?.lastPathComponent ?? "a journal")",
                                                   clock: clock)
        configuration.checkpoints = .inMemoryOnly
        let replay = Replay(store: try Store(configuration: configuration), source: journal, lastVersion: last,
                            excluded: excluded)
        if !paused { try replay.finish() }
        return replay
    }
}
