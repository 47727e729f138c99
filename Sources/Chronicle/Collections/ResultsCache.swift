/// Caches a Results' evaluation for one state version, so that reading the
/// same results twice between commits does the work once.
final class ResultsCache: Sendable {
    private let entry = Locked<(version: UInt64, keys: [ObjectKey], resume: ObjectKey, complete: Bool)?>(nil)

    func evaluation<Element>(for version: UInt64) -> ResultsQuery<Element>.Evaluation? {
        entry.withLock { entry in
            guard let entry, entry.version == version else { return nil }
            return .init(keys: entry.keys, resumeKey: entry.resume, isComplete: entry.complete)
        }
    }

    /// Removes and returns the evaluation of `version`, so the caller holds
    /// the only reference to its keys while it extends them. Another reader
    /// meanwhile finds none and evaluates on its own (same result).
    func take<Element>(for version: UInt64) -> ResultsQuery<Element>.Evaluation? {
        entry.withLock { entry in
            guard let taken = entry, taken.version == version else { return nil }
            entry = nil
            return .init(keys: taken.keys, resumeKey: taken.resume, isComplete: taken.complete)
        }
    }

    func store<Element>(_ evaluation: ResultsQuery<Element>.Evaluation, for version: UInt64) {
        entry.withLock { entry in
            // Keep the furthest evaluation of this version.
            if let current = entry, current.version == version, current.keys.count > evaluation.keys.count { return }
            entry = (version, evaluation.keys, evaluation.resumeKey, evaluation.isComplete)
        }
    }
}
