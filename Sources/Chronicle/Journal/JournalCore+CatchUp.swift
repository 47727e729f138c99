extension JournalCore {
    /// Indexes the whole records that other processes appended after the
    /// last one this journal knows, so that readers made from now on see
    /// them; returns the last version.
    ///
    /// What follows the last known record is one of: nothing; zeros (space a
    /// writer reserved ahead, see ``reserve(_:after:)``); whole records; or,
    /// after them, a record that is not whole. Without the process lock,
    /// such a record may be a commit another process is writing right now,
    /// so the catch-up stops before it and changes nothing: it is read once
    /// it is whole (the next change notification). Holding the lock, nothing
    /// is being written, so it is a torn tail that a writer killed
    /// mid-commit left, and it is cut (the file is synced) before anything
    /// is appended, exactly as opening for writing cuts one; unless a whole
    /// record follows it, which is damage and is thrown, never cut.
    ///
    /// - Parameters:
    ///   - holdingProcessLock: whether the caller holds ``processLock``.
    ///   - evenIfClosed: catch up a closed journal too (closing does, to
    ///     find the true end before it gives back the space it reserved).
    /// - Throws: ``JournalError/damaged(offset:lastGoodVersion:reason:)`` if
    ///   a whole record holds the wrong version or does not decode, or (with
    ///   the lock) if valid data follows a bad record; ``JournalError/closed``;
    ///   ``JournalError/io(operation:errno:path:)``. Nothing is indexed or
    ///   cut then.
    /// - Complexity: O(1) when nothing was appended (an `fstat` and an
    ///   8-byte read); otherwise O(size of the new records), plus O(size of
    ///   the tail) to tell a torn tail from damage.
    @discardableResult
    func catchUp(holdingProcessLock: Bool, evenIfClosed: Bool = false) throws(JournalError) -> UInt64 {
        try state.withLock { (state) throws(JournalError) -> UInt64 in
            if state.isClosed && !evenIfClosed { throw .closed }
            let size = try storage.size()
            guard size > state.end else {
                if holdingProcessLock { state.reservedEnd = state.end }
                return state.lastVersion
            }
            // Zeros where the next record would start: only reserved space
            // (a record's length is never zero, and a killed writer's bytes
            // land in order, so a torn record shows its length first).
            if try storage.frameHeaderIsZeros(at: state.end) {
                if holdingProcessLock { state.reservedEnd = size }
                return state.lastVersion
            }
            var found: [Int] = []
            var end = state.end
            var cursor = RecordCursor(storage: storage, from: state.end, to: size)
            scan: while true {
                let lastGood = state.lastVersion + UInt64(found.count)
                switch try cursor.nextVersion() {
                case .end:
                    break scan
                case .record(let version, let start):
                    guard version == lastGood + 1 else {
                        throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood,
                                       reason: "the record another writer appended holds version \(version) where version \(lastGood + 1) belongs")
                    }
                    found.append(start)
                    end = cursor.offset
                case .badPayload(let start, let reason):
                    throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood, reason: reason)
                case .newerPayload(let start, let reason):
                    throw .writtenByNewerVersion(version: lastGood + 1, offset: UInt64(start), detail: reason)
                case .badFrame(let start, let reason):
                    guard holdingProcessLock else { break scan }
                    let cut = try cutTail(at: start, lastGood: lastGood, reason: reason, cursor: &cursor)
                    state.reservedEnd = cut ? start : size
                    state.offsets += found
                    state.end = end
                    return state.lastVersion
                }
            }
            if holdingProcessLock { state.reservedEnd = max(end, size) }
            state.offsets += found
            state.end = end
            return state.lastVersion
        }
    }

    /// Cuts the file at `start`, where a record that is not whole begins,
    /// unless it is reserved zeros (nothing to cut) or valid data follows
    /// it (damage, thrown). Only for the holder of the process lock.
    /// - Returns: whether the file was cut.
    private func cutTail(at start: Int, lastGood: UInt64, reason: String, cursor: inout RecordCursor) throws(JournalError) -> Bool {
        if try storage.frameHeaderIsZeros(at: start) { return false }
        switch try cursor.validRecord(after: start) {
        case .found(let next):
            throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood, reason: "\(reason), yet a valid record follows at byte \(next)")
        case .undecided(let limit):
            throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood,
                           reason: "\(reason), and more than \(limit) possible records follow at once, so it cannot be ruled out "
                               + "that valid data follows")
        case .none:
            try storage.truncate(to: start)
            return true
        }
    }
}
