import Synchronization

// The write pipeline: from `store.write { }` to a commit in the journal, a
// published state and the observers it wakes.

extension Store {
    /// Runs `body` as one write transaction and commits its changes as one
    /// journal commit, blocking until the journal has it (with the
    /// configured durability).
    ///
    /// If `body` throws, nothing is committed and the error is rethrown. A
    /// write that changes nothing appends nothing. Writes do not nest.
    ///
    /// - Parameters:
    ///   - label: A label the journal keeps with the commit, e.g. `"adopt dog"`.
    ///   - metadata: String key/values the journal keeps with the commit.
    ///   - body: The changes; reads inside it see them.
    /// - Returns: What `body` returns.
    /// - Complexity: O(size of the change), plus the journal append.
    @discardableResult
    public func write<Result>(label: String? = nil, metadata: [String: String] = [:],
                              _ body: () throws -> Result) throws -> Result {
        precondition(currentTransaction() == nil,
                     "Chronicle: store.write was called inside another write on the same store; make all the changes in the outer write")
        writesUnderWay.begin()
        defer { writesUnderWay.end() }
        writer.lock()
        return try performWrite(label: label, metadata: metadata, body)
    }

    /// Like ``write(label:metadata:_:)``, but suspends instead of blocking
    /// while another write holds the store.
    @discardableResult
    public func asyncWrite<Result: Sendable>(label: String? = nil, metadata: [String: String] = [:],
                                             _ body: @Sendable () throws -> Result) async throws -> Result {
        writesUnderWay.begin()
        defer { writesUnderWay.end() }
        await writer.lock()
        return try performWrite(label: label, metadata: metadata, body)
    }

    private func performWrite<Result>(label: String?, metadata: [String: String], _ body: () throws -> Result) throws -> Result {
        // Other processes' commits first (Store+CatchUp.swift). The journal
        // this commit goes to: wait for durability on the same one
        // (compaction may replace it once the writer lock is released).
        let journal = try beginWrite()
        defer { journal.unlockAfterAppending() }
        let (result, ticket) = try transact(appendingTo: journal, label: label, metadata: metadata, body)
        if let ticket {
            do {
                try journal.waitUntilDurable(ticket)
            } catch {
                throw StoreError.journal(error)
            }
            commitListeners.notify(ticket.version)
        }
        return result
    }

    /// Runs `body` as this thread's write in progress and appends what it
    /// changed to `journal` as one commit; the ticket to wait on for its
    /// durability, `nil` when there was nothing to commit.
    ///
    /// Every path leaves through one exit, which ends the write and releases
    /// the writer lock (taken by the caller): rolled back unless the journal
    /// has the commit; ended before observers see the commit (they may read,
    /// or start a write, on this thread); the lock released after them, so
    /// they see commits in order.
    private func transact<Result>(appendingTo journal: Journal, label: String?, metadata: [String: String],
                                  _ body: () throws -> Result) throws -> (Result, DurabilityTicket?) {
        let base = committedState()
        let transaction = Transaction(store: self, base: base, label: label, metadata: metadata)
        slot.transaction = transaction
        owner.store(currentThreadID(), ordering: .releasing)
        var kept = false
        // Not an optional pair holding the commit: a `Commit` holds a `Date`,
        // a type of a library built for binary compatibility, so such a pair
        // was destroyed through the runtime's generic witnesses, a few
        // hundred instructions a write.
        var published: StoreState?
        defer {
            if !kept { transaction.rollBack() }
            transaction.finish()
            owner.store(0, ordering: .releasing)
            slot.transaction = nil
            if let published {
                // Read from the transaction where it lies: a copy of its
                // change set (every array in it retained, then released)
                // was paid by every commit, observed or not.
                observers.dispatch(building: { transaction.changes.build(version: published.version) },
                                   footprint: transaction.changes.footprint, old: base, new: published)
            }
            writer.unlock()
        }

        let result = try body()
        if let failure = transaction.failure { throw failure }
        guard transaction.eventCount > 0 else {
            kept = true
            return (result, nil)
        }
        let version = base.version + 1
        let ticket: DurabilityTicket
        do {
            // The transaction encoded the commit's events as it applied
            // them: the journal writes that record as it is.
            let record = try transaction.record(version: version, timestamp: configuration.clock(), label: label,
                                                metadata: metadata)
            ticket = try journal.write(record)
            journal.unlockAfterAppending()
        } catch {
            throw StoreError.journal(error)
        }
        kept = true
        var state = transaction.state
        state.version = version
        publish(state)
        checkpoints.didFold(state, events: transaction.eventCount)
        checkpointFile.didCommit(events: transaction.eventCount)
        published = state
        return (result, ticket)
    }
}

/// Where the write in progress lives while its thread holds the writer lock.
final class TransactionSlot: @unchecked Sendable {
    // Safety: written only by the thread holding the store's writer lock,
    // before it publishes itself as owner and after it withdraws; read only
    // by the thread that the owner check identifies as that same thread.
    var transaction: Transaction?
}
