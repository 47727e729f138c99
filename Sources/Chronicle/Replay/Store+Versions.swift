extension Store {
    /// Time travel over this store's journal, from its checkpoints.
    var timeTravel: TimeTravel { TimeTravel(journal: journal, checkpoints: checkpoints) }

    /// The committed state at `version`: the current state, or the fold from
    /// the nearest checkpoint.
    func state(at version: UInt64) throws(StoreError) -> StoreState {
        let current = committedState()
        guard version <= current.version else {
            throw .versionOutOfRange(requested: version, available: 0...current.version)
        }
        if version == current.version { return current }
        return try timeTravel.state(at: version)
    }
}
