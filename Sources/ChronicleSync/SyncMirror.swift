import Chronicle
import Foundation

/// The scope's commits as the server ordered them, kept in a journal of
/// their own next to the device's (`server.journal` in the sync folder),
/// and their fold: the state every device converges to.
///
/// Synced in batches (`durability`), not per append: the server keeps
/// the commits, so a copy that loses its last ones in a crash pulls them
/// again, and the sync of each append would delay the remote changes a
/// device brings into its store.
final class SyncMirror {
    private(set) var journal: Journal
    private(set) var state: StoreState
    let url: URL?

    static let durability = Durability.batched(maxDelay: .milliseconds(100), maxCommits: 10_000)

    init(url: URL?) throws {
        self.url = url
        if let url {
            journal = try Journal(fileURL: url, durability: Self.durability)
        } else {
            journal = Journal.inMemory()
        }
        var state = StoreState()
        var reader = journal.reader(from: journal.baseVersion + 1)
        while let commit = try reader.next() { state = try state.applying(commit).state }
        self.state = state
    }

    var version: UInt64 { state.version }

    /// Appends the server's next commits; returns what each changed.
    @discardableResult
    func append(_ commits: [Commit]) throws -> [ChangeSet] {
        var changes: [ChangeSet] = []
        for commit in commits {
            let (next, changed) = try state.applying(commit)
            try journal.append(commit)
            state = next
            changes.append(changed)
        }
        return changes
    }

    /// Starts over from a server snapshot (a new device's bootstrap):
    /// `folded` is its fold into the empty state.
    func reset(toSnapshot snapshot: Commit, folded: StoreState) throws {
        if let url {
            try journal.close()
            try Journal.syncCreate(at: url, baseVersion: snapshot.version - 1, commits: [snapshot])
            journal = try Journal(fileURL: url, durability: Self.durability)
        } else {
            // An in-memory mirror keeps no history: the state is what matters.
            journal = Journal.syncInMemory(baseVersion: snapshot.version)
        }
        state = folded
    }
}
