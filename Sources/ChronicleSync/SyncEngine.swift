import Chronicle
import Foundation

/// The bookkeeping of one session's loop: the mirror of the scope, the
/// durable progress, and the rebased commits waiting to be pushed. Used by
/// one task at a time (the session's loop), so a plain value.
struct SyncEngine {
    let mirror: SyncMirror
    private let store: Store
    private(set) var progress: SyncProgress
    private let progressURL: URL?
    private var pairs: KeyPairs
    /// Scope objects changed since the last rebase.
    private var touched: Set<TableKey> = []
    /// Compare every object at the next rebase (after opening or a bootstrap).
    private var full = true
    /// The rebased pending commits, as the scope gets them, for base `pushBase`.
    private var pushes: [(id: UUID, commit: Commit)] = []
    private var pushBase: UInt64 = 0
    private(set) var isCaughtUp = false

    init(store: Store, folder: URL?) throws {
        if let folder { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        progressURL = folder?.appendingPathComponent("progress.json")
        progress = try SyncProgress.load(from: progressURL)
        self.store = store
        pairs = KeyPairs(progress.keyPairs)
        mirror = try SyncMirror(url: folder?.appendingPathComponent("server.journal"))
        try resumeAfterBootstrap()
    }

    var serverVersion: UInt64 { mirror.version }
    /// A new device starts from the server's snapshot.
    var canBootstrap: Bool { mirror.version == 0 }
    var hasWorkToPush: Bool { !pushes.isEmpty && pushBase == mirror.version }
    var pendingCount: Int { progress.pending.count }

    /// The local journal version through which every local commit is on the server.
    var uploadedThrough: UInt64 {
        if let first = progress.pending.first { return first.local - 1 }
        return progress.scannedThrough
    }

    /// Takes in what a pull brought.
    mutating func absorb(_ pull: SyncWire.Pull) throws {
        if let snapshot = pull.snapshot {
            let commit: Commit
            do { commit = try Commit(encoded: snapshot) } catch { throw SyncError.protocolViolation("a snapshot that does not decode: \(error)") }
            if commit.version > mirror.version {
                let folded: StoreState
                do { folded = try StoreState.syncFold(snapshot: commit) } catch { throw SyncError.protocolViolation("a snapshot that does not fold: \(error)") }
                // The store first: its first objects are readable before the mirror's copy is written.
                let adopted = mirror.version == 0 ? try adopt(commit, scope: folded) : false
                try mirror.reset(toSnapshot: commit, folded: folded)
                touched = []
                full = !adopted
            }
        }
        var commits: [Commit] = []
        var ids = Set<UUID>()
        for wire in pull.commits {
            let commit: Commit
            do { commit = try Commit(encoded: wire.payload) } catch { throw SyncError.protocolViolation("a commit that does not decode: \(error)") }
            guard commit.version > mirror.version else { continue }
            commits.append(commit)
            ids.insert(wire.id)
        }
        for changes in try mirror.append(commits) { note(changes) }
        isCaughtUp = pull.head <= mirror.version
        // This device's own commits, accepted before it heard the answer (it was killed, or the answer was lost).
        let before = progress.pending.count
        progress.pending.removeAll { ids.contains($0.id) }
        if progress.pending.count != before { try save() }
    }

    /// An empty store takes the snapshot as its journal's start
    /// (``Store/syncAdopt(snapshot:scope:label:metadata:)``) instead of
    /// a rebase creating every object in one commit: its state is then the
    /// scope's, key for key. Returns whether it did.
    private mutating func adopt(_ snapshot: Commit, scope: StoreState) throws -> Bool {
        guard progress.keyPairs.isEmpty,
              let version = try store.syncAdopt(snapshot: snapshot, scope: scope, label: "sync",
                                                metadata: [SyncSession.syncMetadataKey: String(snapshot.version)]) else { return false }
        adopted(at: version)
        try save()
        return true
    }

    /// The store's journal now starts at `version`, a bootstrap's snapshot:
    /// what the journal held before were schema commits, folded into it or
    /// into the commit after it (a local commit, looked at as any other).
    private mutating func adopted(at version: UInt64) {
        progress.scannedThrough = version
        progress.pending = []
        progress.keyPairs = []
        pairs = KeyPairs([])
    }

    /// A device killed between its bootstrap's new journal and saving its
    /// progress finds a journal that starts after the progress it saved:
    /// catches up with it.
    private mutating func resumeAfterBootstrap() throws {
        let journal = store.journalForReading
        guard journal.baseVersion > 0, progress.scannedThrough <= journal.baseVersion else { return }
        var reader = journal.reader(from: journal.baseVersion + 1)
        guard let first = try reader.next(), first.metadata[SyncSession.syncMetadataKey] != nil else { return }
        adopted(at: first.version)
        try save()
    }

    private mutating func note(_ changes: ChangeSet) {
        for key in changes.insertions { touched.insert(key) }
        for key in changes.deletions { touched.insert(key) }
        for modification in changes.modifications { touched.insert(TableKey(table: modification.table, key: modification.key)) }
    }

    /// Looks at the local commits made since the last time, rebases every
    /// pending one over the scope, brings the store to the result (one
    /// commit, marked with ``SyncSession/syncMetadataKey``), and keeps the
    /// rebased commits to push.
    mutating func rebaseAndCollect(store: Store) throws {
        var scanned = progress.scannedThrough
        var pending = progress.pending
        var outcome: Rebase?
        let scope = mirror.state
        let (pairs, touched, full) = (self.pairs, self.touched, self.full)
        let journal = store.journalForReading
        let committed = try store.syncWrite(label: "sync", metadata: [SyncSession.syncMetadataKey: String(scope.version)]) { local in
            if local.version > scanned {
                var reader = journal.reader(from: scanned + 1)
                while let commit = try reader.next(), commit.version <= local.version {
                    if commit.metadata[SyncSession.syncMetadataKey] == nil { pending.append(.init(local: commit.version, id: UUID())) }
                }
            }
            scanned = max(scanned, local.version)
            var commits: [(id: UUID, commit: Commit)] = []
            for entry in pending {
                var reader = journal.reader(from: entry.local)
                guard let commit = try reader.next(), commit.version == entry.local else {
                    throw SyncError.local("the journal lacks local commit \(entry.local)")
                }
                commits.append((entry.id, commit))
            }
            var rebase = Rebase(scope: scope, local: local, pairs: pairs, touchedScope: touched)
            try rebase.run(pending: commits, full: full)
            outcome = rebase
            return rebase.localEvents
        }
        if let committed { scanned = max(scanned, committed) }
        guard let outcome else { return }
        self.pairs = outcome.pairs
        let emptied = Set(outcome.emptied)
        pending.removeAll { emptied.contains($0.id) }
        progress.pending = pending
        progress.scannedThrough = scanned
        progress.keyPairs = outcome.pairs.list
        pushBase = scope.version
        pushes = outcome.pushes.enumerated().map { offset, push in
            (push.id, Commit(version: scope.version + UInt64(offset) + 1, timestamp: push.source.timestamp,
                             label: push.source.label, metadata: push.source.metadata, events: push.events))
        }
        self.touched = []
        self.full = false
        try save()
    }

    /// The most payload bytes one push carries (unless its first commit
    /// alone is bigger): well under the server's default request limit.
    static let pushByteBudget = 8 << 20

    /// The next push: the first rebased commits, at most
    /// ``SyncWire/maximumCommitsPerPush`` of them and about
    /// ``pushByteBudget`` bytes, so that a device back from a long time
    /// offline uploads in several pushes instead of one the server refuses.
    func wireCommits() -> [SyncWire.WireCommit] {
        var commits: [SyncWire.WireCommit] = []
        var bytes = 0
        for push in pushes {
            let payload = push.commit.encoded()
            if !commits.isEmpty && (commits.count == SyncWire.maximumCommitsPerPush || bytes + payload.count > Self.pushByteBudget) { break }
            commits.append(SyncWire.WireCommit(id: push.id, payload: payload))
            bytes += payload.count
        }
        return commits
    }

    /// The server took the first `versions.count` of the rebased commits
    /// (one ``wireCommits()``) at `versions`.
    mutating func accepted(versions: [UInt64]) throws {
        let sent = pushes.prefix(versions.count)
        let fresh = versions == sent.map(\.commit.version) && mirror.version == pushBase
        let ids = Set(sent.map(\.id))
        if fresh {
            for changes in try mirror.append(sent.map(\.commit)) { note(changes) }
            // The rest stay rebased on top of these: the next push sends them.
            pushes.removeFirst(sent.count)
            pushBase = mirror.version
        } else {
            // Accepted by an earlier try at other versions: the pull brings them.
            isCaughtUp = false
            pushes = []
        }
        progress.pending.removeAll { ids.contains($0.id) }
        try save()
    }

    /// The scope moved on: pull, rebase again, push again.
    mutating func conflicted() {
        pushes = []
        isCaughtUp = false
    }

    /// Closes the mirror's journal, so that another session can open it.
    func close() { try? mirror.journal.close() }

    private func save() throws {
        try progress.save(to: progressURL)
    }
}

extension JournalError {
    /// Whether another writer holds the journal.
    var isLocked: Bool {
        if case .locked = self { return true }
        return false
    }
}
