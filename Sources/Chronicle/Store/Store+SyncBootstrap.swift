import Foundation

/// How `ChronicleSync` lets a device that joins a scope with an empty store
/// start from the server's snapshot: the store's journal is replaced by one
/// whose first commit is the snapshot (the shape a compacted journal has),
/// instead of the snapshot's objects being created again in one ordinary
/// commit. Package access: not public API.
extension Store {
    /// Makes `snapshot` the start of this store's journal, if the store is
    /// *empty*: it holds no objects, and every commit of its journal only
    /// defines types or adds properties.
    ///
    /// The new journal's first commit is `snapshot` with `label`, its
    /// metadata plus `metadata`, and the version
    /// `max(snapshot.version, version + 1)` (versions never go back); when
    /// the store defined types or properties the scope lacks, a commit
    /// labelled `"schema"` that adds them follows (a local commit like the
    /// one ``init(configuration:)`` writes). The file is replaced
    /// atomically, as ``compact(keepingLast:)`` replaces it; `scope` (the
    /// fold of `snapshot`) becomes the published state without being folded
    /// again, and observers see every object inserted.
    ///
    /// Nothing changes, and the result is `nil`, when the store is not
    /// empty, `scope` holds no object, the two schemas are not one an
    /// extension of the other table by table (same types at the same
    /// indices, one's properties a prefix of the other's) or have different
    /// schema versions, or another process has the journal open.
    ///
    /// - Parameters:
    ///   - snapshot: A snapshot commit (``StoreState/isSnapshot(_:)``).
    ///   - scope: The fold of `snapshot` into the empty state.
    /// - Returns: The version of the snapshot in the new journal, or `nil`.
    /// - Throws: ``StoreError/journal(_:)`` when the journal cannot be
    ///   read, written or replaced.
    /// - Complexity: O(size of the snapshot) to write it, plus the
    ///   store's journal read once.
    package func syncAdopt(snapshot: Commit, scope: StoreState, label: String,
                           metadata: [String: String]) throws -> UInt64? {
        precondition(currentTransaction() == nil, "Chronicle: a sync bootstrap cannot run inside a write on the same store")
        guard StoreState.isSnapshot(snapshot), scope.version == snapshot.version else { return nil }
        writer.lock()
        var plan: (old: StoreState, new: StoreState, snapshotVersion: UInt64)?
        defer {
            // Published, whether or not a step after the rename failed: tell observers.
            if let plan, committedState().version == plan.new.version {
                dispatchAdoption(old: plan.old, new: plan.new)
            }
            writer.unlock()
        }
        func replacement(current: StoreState, journal: Journal) throws -> JournalReplacement? {
            guard try Self.canAdopt(scope, over: current, journal: journal) else { return nil }
            let version = max(scope.version, current.version + 1)
            var state = scope
            state.version = version
            var commits = [Commit(version: version, timestamp: snapshot.timestamp, label: label,
                                  metadata: snapshot.metadata.merging(metadata) { $1 }, events: snapshot.events)]
            let added = Self.schemaExtension(of: scope, covering: current)
            if !added.isEmpty {
                let commit = Commit(version: version + 1, timestamp: configuration.clock(), label: "schema", metadata: [:], events: added)
                do { state = try state.applying(commit).state } catch { throw StoreError.rejected(error) }
                commits.append(commit)
            }
            plan = (current, state, version)
            return JournalReplacement(baseVersion: version - 1, commits: commits, state: state)
        }
        if let url = configuration.fileURL {
            do {
                guard try replaceJournalFile(at: url, operation: "a sync bootstrap", afterStep: nil, replacement) else { return nil }
            } catch StoreError.sharedWithOtherProcesses {
                return nil
            }
        } else {
            guard let new = try replacement(current: committedState(), journal: journal), let state = new.state else { return nil }
            do {
                let replaced = try Journal.inMemory(durability: configuration.durability, baseVersion: new.baseVersion, commits: new.commits)
                journalBox.withLock { $0 = replaced }
            } catch {
                throw StoreError.journal(error)
            }
            publish(state)
        }
        guard let plan else { return nil }
        checkpoints.insert(plan.new)
        // Not counted as events for the checkpoint file: the new journal's
        // file is already being written (the journal was replaced), and
        // counting them would write it a second time once that write ends.
        return plan.snapshotVersion
    }

    /// Whether `scope` can replace `current`, the state of `journal`: see
    /// ``syncAdopt(snapshot:scope:label:metadata:)``.
    private static func canAdopt(_ scope: StoreState, over current: StoreState, journal: Journal) throws -> Bool {
        guard current.tables.indices.allSatisfy({ current.count(table: $0) == 0 }),
              scope.tables.indices.contains(where: { scope.count(table: $0) > 0 }),
              scope.schemaVersion == current.schemaVersion else { return false }
        for table in 0..<min(scope.schema.count, current.schema.count) {
            let mine = current.schema[table], theirs = scope.schema[table]
            let shared = min(mine.properties.count, theirs.properties.count)
            guard mine.name == theirs.name, mine.properties.prefix(shared) == theirs.properties.prefix(shared) else { return false }
        }
        var reader = journal.reader(from: journal.baseVersion + 1)
        do throws(JournalError) {
            while let commit = try reader.next() {
                for event in commit.events {
                    switch event {
                    case .defineType, .addProperty: continue
                    default: return false
                    }
                }
            }
        } catch {
            throw StoreError.journal(error)
        }
        return true
    }

    /// The events that add to `scope` the types and properties `current`
    /// has beyond it (``canAdopt(_:over:journal:)`` holds).
    private static func schemaExtension(of scope: StoreState, covering current: StoreState) -> [Event] {
        var events: [Event] = []
        for (table, type) in current.schema.enumerated() {
            guard table < scope.schema.count else {
                events.append(.defineType(type))
                continue
            }
            for property in type.properties.dropFirst(scope.schema[table].properties.count) {
                events.append(.addProperty(table: table, property))
            }
        }
        return events
    }

    /// Tells observers that every object of `new` was inserted (`old` had none).
    private func dispatchAdoption(old: StoreState, new: StoreState) {
        var footprint = ChangeFootprint()
        footprint.isStructural = true
        observers.dispatch(building: {
            var insertions: [TableKey] = []
            for table in new.tables.indices {
                for (key, _) in new.objects(table: table) { insertions.append(TableKey(table: table, key: key)) }
            }
            return ChangeSet(version: new.version, insertions: insertions, deletions: [], deletedRecords: [:],
                             modifications: [], schemaChanged: new.schema != old.schema)
        }, footprint: footprint, old: old, new: new)
    }
}

extension Journal {
    /// An in-memory journal that starts after `baseVersion` and holds
    /// nothing yet: how an in-memory copy of a scope starts from a server
    /// snapshot, keeping its state and not its commits.
    package static func syncInMemory(baseVersion: UInt64) -> Journal {
        do {
            return try inMemory(durability: .none, baseVersion: baseVersion, commits: [])
        } catch {
            preconditionFailure("Chronicle: an empty in-memory journal failed to start after version \(baseVersion): \(error)")
        }
    }
}

extension StoreState {
    /// The fold of a snapshot commit into the empty state, recording no
    /// change set (``applying(_:)`` would record every object inserted):
    /// how a device folds the snapshot it joins a scope with.
    ///
    /// - Throws: ``FoldError`` when the commit does not fold.
    /// - Complexity: O(size of the snapshot).
    package static func syncFold(snapshot: Commit) throws(FoldError) -> StoreState {
        var state = StoreState()
        try state.foldInPlace(snapshot)
        return state
    }
}
