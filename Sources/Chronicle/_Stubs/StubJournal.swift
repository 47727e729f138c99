// THROWAWAY STUB — replaced by the journal branch at merge.
import Foundation
import Synchronization
public enum Durability: Sendable, Hashable { case full, none }
public enum JournalError: Error, Sendable { case io(String) }
struct DurabilityTicket { let version: UInt64 }
public final class Journal: Sendable {
    private let commits = Mutex<[Commit]>([])
    init(fileURL: URL, durability: Durability) throws(JournalError) {}
    private init() {}
    static func inMemory() -> Journal { Journal() }
    struct CommitReader {
        var commits: [Commit]
        var index = 0
        mutating func next() throws(JournalError) -> Commit? {
            guard index < commits.count else { return nil }
            defer { index += 1 }
            return commits[index]
        }
    }
    func commitReader(from version: UInt64) -> CommitReader { CommitReader(commits: commits.withLock { $0 }.filter { $0.version >= version }) }
    func write(_ commit: Commit) throws(JournalError) -> DurabilityTicket { commits.withLock { $0.append(commit) }; return DurabilityTicket(version: commit.version) }
    func waitUntilDurable(_ ticket: DurabilityTicket) throws(JournalError) {}
}
