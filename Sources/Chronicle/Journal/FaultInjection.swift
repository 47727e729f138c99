/// A test seam: hooks called before each write and each sync, which can throw
/// to simulate a failing disk. `nil` (the default) costs one optional check.
struct FaultInjection: Sendable {
    /// Called with the version about to be written.
    var beforeWrite: (@Sendable (UInt64) throws(JournalError) -> Void)?
    /// Called before every sync of the storage.
    var beforeSync: (@Sendable () throws(JournalError) -> Void)?

    init(beforeWrite: (@Sendable (UInt64) throws(JournalError) -> Void)? = nil,
         beforeSync: (@Sendable () throws(JournalError) -> Void)? = nil) {
        self.beforeWrite = beforeWrite
        self.beforeSync = beforeSync
    }
}
