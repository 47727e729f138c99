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
    /// The progress changed since it was last written.
    private var unsaved = false

    init(store: Store, folder: URL?) throws {
        if let folder { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        progressURL = folder?.appendingPathComponent("progress.json")
        progress = try SyncProgress.load(from: progressURL)
        self.store = store
        pairs = KeyPairs(progress.keyPairs)
        mirror = try SyncMirror(url: folder?.appendingPathComponent("server.journal"))
        if progress.deviceID == nil {
            // On disk before any commit is pushed under an id made from it.
            progress.deviceID = UUID()
            try save()
        }
        try resumeAfterBootstrap()
    }

    var serverVersion: UInt64 { mirror.version }
    /// A new device starts from the server's snapshot.
    var canBootstrap: Bool { mirror.version == 0 }
    var hasWorkToPush: Bool { !pushes.isEmpty && pushBase == mirror.version }
    var pendingCount: Int { progress.pending.count }
    /// Whether rebased commits wait to be pushed (at the scope's version or an older one).
    var hasRebasedPushes: Bool { !pushes.isEmpty }

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
        let pendingIDs = Set(progress.pending.map(\.id))
        var own: [UInt64] = []
        var ownCommits: [(id: UUID, commit: Commit)] = []
        for wire in pull.commits {
            let commit: Commit
            do { commit = try Commit(encoded: wire.payload) } catch { throw SyncError.protocolViolation("a commit that does not decode: \(error)") }
            guard commit.version > mirror.version else { continue }
            commits.append(commit)
            ids.insert(wire.id)
            if pendingIDs.contains(wire.id) {
                own.append(commit.version)
                ownCommits.append((wire.id, commit))
            }
        }
        for changes in try mirror.append(commits) { note(changes) }
        isCaughtUp = pull.head <= mirror.version
        // This device's own commits, accepted before it heard the answer (it was killed, or the answer was lost).
        if !own.isEmpty {
            try pairCreates(of: ownCommits)
            progress.pending.removeAll { ids.contains($0.id) }
            noteOwn(own)
            try save()
        }
    }

    /// This device's commits as the server has them: the scope keys their
    /// creates got there are the ones that count, whatever a later rebase
    /// of the same local commits picked (when an earlier try of a push
    /// landed late, a later rebase may have given a create another fresh
    /// key). Pairs each create of the server's commit with the local
    /// commit's create of the same type: by primary key where the type has
    /// one, otherwise in order when the two commits create as many objects
    /// of that type; only objects both sides still have.
    ///
    /// - Complexity: O(size of the commits).
    private mutating func pairCreates(of own: [(id: UUID, commit: Commit)]) throws {
        let journal = store.journalForReading
        let localState = store.syncCommittedState
        let scopeState = mirror.state
        let (localSchema, scopeSchema) = (localState.schema, scopeState.schema)
        /// Per type name, the creates' keys and primary-key values, in order.
        func creates(_ commit: Commit, _ schema: [TypeSchema]) -> [String: [(key: Int64, primaryKey: PersistedValue?)]] {
            var found: [String: [(key: Int64, primaryKey: PersistedValue?)]] = [:]
            for case .create(let table, let key, let values) in commit.events where schema.indices.contains(table) {
                let primaryKey = schema[table].primaryKeyIndex.flatMap { values.indices.contains($0) ? values[$0] : nil }
                found[schema[table].name, default: []].append((key.rawValue, primaryKey))
            }
            return found
        }
        var changed = false
        for (id, served) in own {
            guard let entry = progress.pending.first(where: { $0.id == id }) else { continue }
            var reader = journal.reader(from: entry.local)
            guard let local = try reader.next(), local.version == entry.local else { continue }
            let localCreates = creates(local, localSchema)
            for (type, scopeCreates) in creates(served, scopeSchema) {
                guard let localOnes = localCreates[type] else { continue }
                var matches: [(scope: Int64, local: Int64)] = []
                if scopeCreates.allSatisfy({ $0.primaryKey != nil }) {
                    var byPrimaryKey: [PersistedValue: Int64] = [:]
                    for create in localOnes { if let primaryKey = create.primaryKey { byPrimaryKey[primaryKey] = create.key } }
                    for create in scopeCreates {
                        if let primaryKey = create.primaryKey, let localKey = byPrimaryKey[primaryKey] { matches.append((create.key, localKey)) }
                    }
                } else if localOnes.count == scopeCreates.count {
                    matches = zip(scopeCreates, localOnes).map { ($0.key, $1.key) }
                }
                // Only objects both sides still have: a pair outliving its
                // objects would claim a key the scope may give another later.
                guard let scopeTable = scopeState.tableIndex(named: type), let localTable = localState.tableIndex(named: type) else { continue }
                matches.removeAll {
                    !scopeState.contains(table: scopeTable, key: ObjectKey($0.scope)) || !localState.contains(table: localTable, key: ObjectKey($0.local))
                }
                for match in matches where pairs.scopeKey(type, local: match.local) != match.scope {
                    pairs.match(type: type, scope: match.scope, local: match.local)
                    changed = true
                }
            }
        }
        if changed {
            progress.keyPairs = pairs.list
            full = true
        }
    }

    /// An empty store takes the snapshot as its journal's start
    /// (``Store/syncAdopt(snapshot:scope:label:metadata:)``) instead of
    /// a rebase creating every object in one commit: its state is then the
    /// scope's, key for key. Returns whether it did.
    private mutating func adopt(_ snapshot: Commit, scope: StoreState) throws -> Bool {
        guard progress.keyPairs.isEmpty,
              let version = try store.syncAdopt(snapshot: snapshot, scope: scope, label: "sync",
                                                metadata: [SyncSession.syncMetadataKey: String(snapshot.version)]) else { return false }
        adopted(at: version, scopeVersion: snapshot.version)
        try save()
        return true
    }

    /// The store's journal now starts at `version`, a bootstrap's snapshot:
    /// what the journal held before were schema commits, folded into it or
    /// into the commit after it (a local commit, looked at as any other).
    /// Local commits made after it are based on the scope at `scopeVersion`.
    private mutating func adopted(at version: UInt64, scopeVersion: UInt64?) {
        progress.scannedThrough = version
        progress.pending = []
        progress.keyPairs = []
        progress.rebasedAt = scopeVersion
        progress.ownVersions = nil
        pairs = KeyPairs([])
    }

    /// A device killed between its bootstrap's new journal and saving its
    /// progress finds a journal that starts after the progress it saved:
    /// catches up with it.
    private mutating func resumeAfterBootstrap() throws {
        let journal = store.journalForReading
        guard journal.baseVersion > 0, progress.scannedThrough <= journal.baseVersion else { return }
        var reader = journal.reader(from: journal.baseVersion + 1)
        guard let first = try reader.next(), let scope = first.metadata[SyncSession.syncMetadataKey] else { return }
        adopted(at: first.version, scopeVersion: UInt64(scope))
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
        let device = progress.deviceID ?? UUID()
        // The base of local commits made since the last scan (a store that never synced showed the empty scope).
        var base = progress.rebasedAt ?? (scanned == 0 ? 0 : nil)
        let committed = try store.syncWrite(label: "sync", metadata: [SyncSession.syncMetadataKey: String(scope.version)]) { local in
            if local.version > scanned {
                var reader = journal.reader(from: scanned + 1)
                while let commit = try reader.next(), commit.version <= local.version {
                    if let synced = commit.metadata[SyncSession.syncMetadataKey] {
                        base = UInt64(synced)
                    } else {
                        pending.append(.init(local: commit.version, id: SyncProgress.commitID(device: device, commit: commit), base: base))
                    }
                }
            }
            scanned = max(scanned, local.version)
            var commits: [(id: UUID, commit: Commit, base: UInt64?)] = []
            for entry in pending {
                var reader = journal.reader(from: entry.local)
                guard let commit = try reader.next(), commit.version == entry.local else {
                    throw SyncError.local("the journal lacks local commit \(entry.local)")
                }
                commits.append((entry.id, commit, entry.base))
            }
            let history = try listHistory(for: commits, local: local, scope: scope, pairs: pairs)
            var rebase = Rebase(scope: scope, local: local, pairs: pairs, touchedScope: touched, history: history)
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
        progress.rebasedAt = scope.version
        noteOwn([])
        pushBase = scope.version
        pushes = outcome.pushes.enumerated().map { offset, push in
            (push.id, Commit(version: scope.version + UInt64(offset) + 1, timestamp: push.source.timestamp,
                             label: push.source.label, metadata: push.source.metadata, events: push.events))
        }
        self.touched = []
        self.full = false
        // Saved after the push (``saveProgress()``): the ids need not be on
        // disk first (`SyncProgress.commitID(device:commit:)`), and the sync
        // of the file would delay the push.
        unsaved = true
    }

    /// Writes the progress if a rebase changed it since the last write.
    mutating func saveProgress() throws {
        if unsaved { try save() }
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
    /// (one ``wireCommits()``) at `versions`; `found`: an earlier try of
    /// them had landed.
    ///
    /// Only commits the server appended from this very push go into the
    /// mirror as they were sent. Found ones may be another rebase of the
    /// same local commits (an earlier try that landed late, after a
    /// restart or a rebase gave one of their creates another fresh key):
    /// the pull brings the server's.
    mutating func accepted(versions: [UInt64], found: Bool) throws {
        let sent = pushes.prefix(versions.count)
        let fresh = !found && versions == sent.map(\.commit.version) && mirror.version == pushBase
        // Found commits the mirror lacks stay pending until the pull brings
        // them, so that it knows them as this device's (``pairCreates(of:)``).
        let ids = Set(zip(sent, versions).filter { !found || $1 <= mirror.version }.map(\.0.id))
        if fresh {
            for changes in try mirror.append(sent.map(\.commit)) { note(changes) }
            // The rest stay rebased on top of these: the next push sends them.
            pushes.removeFirst(sent.count)
            pushBase = mirror.version
        } else {
            // Accepted by an earlier try: the pull brings them, as the server has them.
            isCaughtUp = false
            pushes = []
        }
        progress.pending.removeAll { ids.contains($0.id) }
        noteOwn(versions)
        try save()
    }

    /// Records this device's commits the server took at `versions`, and
    /// forgets those no pending commit's base is older than, nor the base
    /// of the local commits not scanned yet (the last rebase's version).
    private mutating func noteOwn(_ versions: [UInt64]) {
        let oldest = (progress.pending.compactMap(\.base) + [progress.rebasedAt ?? 0]).min() ?? 0
        let kept = ((progress.ownVersions ?? []) + versions).filter { $0 > oldest }
        progress.ownVersions = kept.isEmpty ? nil : Array(Set(kept)).sorted()
    }

    /// The scope's list edits since the oldest base of `pending`, for the
    /// objects whose lists they edit; `nil` when they edit none.
    ///
    /// - Complexity: O(size of the scope's commits since that base).
    private func listHistory(for pending: [(id: UUID, commit: Commit, base: UInt64?)], local: StoreState, scope: StoreState,
                             pairs: KeyPairs) throws -> ListHistory? {
        var objects = Set<TableKey>()
        for (_, commit, _) in pending {
            for event in commit.events {
                switch event {
                case .listInsert(let table, let key, _, _, _), .listRemove(let table, let key, _, _),
                     .listMove(let table, let key, _, _, _), .listReplace(let table, let key, _, _, _):
                    guard local.schema.indices.contains(table) else { continue }
                    let type = local.schema[table].name
                    guard let scopeTable = scope.tableIndex(named: type) else { continue }
                    objects.insert(TableKey(table: scopeTable, key: ObjectKey(pairs.scopeKey(type, local: key.rawValue))))
                default:
                    continue
                }
            }
        }
        guard !objects.isEmpty, let oldest = pending.compactMap(\.base).min() else { return nil }
        let start = max(oldest, mirror.journal.baseVersion)
        var reader = mirror.journal.reader(from: start + 1)
        return try ListHistory(start: start, objects: objects, own: Set(progress.ownVersions ?? [])) { try reader.next() }
    }

    /// The scope moved on: pull, rebase again, push again.
    mutating func conflicted() {
        pushes = []
        isCaughtUp = false
    }

    /// Closes the mirror's journal, so that another session can open it.
    func close() { try? mirror.journal.close() }

    private mutating func save() throws {
        try progress.save(to: progressURL)
        unsaved = false
    }
}

extension JournalError {
    /// Whether another writer holds the journal.
    var isLocked: Bool {
        if case .locked = self { return true }
        return false
    }
}
