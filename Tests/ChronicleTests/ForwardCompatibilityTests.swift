import Foundation
import Testing
@testable import Chronicle

/// A journal a newer Chronicle wrote: a record whose checksum matches but
/// whose payload holds a tag this build does not know is reported as
/// written by a newer version — never as damage, never cut.
@Suite("Schema: forward compatibility of events", .serialized)
struct ForwardCompatibilityTests {
    /// A commit payload that a newer Chronicle might write: one event whose
    /// bytes hold a tag this build does not know.
    struct NewerPayload: CustomTestStringConvertible, Sendable {
        let name: String
        /// The detail the error names.
        let detail: String
        /// The commit's payload at `version`.
        let payload: @Sendable (_ version: UInt64) -> [UInt8]
        var testDescription: String { name }

        /// A commit of one event, encoded, with the byte `fromEnd` bytes
        /// before the end (a tag) replaced by `tag`.
        static func patched(_ name: String, _ detail: String, event: Event, fromEnd: Int, tag: UInt8) -> NewerPayload {
            NewerPayload(name: name, detail: detail) { version in
                var bytes = Commit(version: version, timestamp: Date(timeIntervalSinceReferenceDate: 0), events: [event]).encoded()
                bytes[bytes.count - fromEnd] = tag
                return bytes
            }
        }

        static let all: [NewerPayload] = [
            // `.delete` encodes as tag, table, key; `.changeSchema` is tag
            // 15, so an event kind added after it would be 16.
            patched("an unknown event kind", "unknown event tag 16",
                    event: .delete(table: 0, key: ObjectKey(0)), fromEnd: 3, tag: 16),
            // The value `.null` is the last byte, its tag.
            patched("an unknown value type", "unknown value tag 200",
                    event: .set(table: 0, key: ObjectKey(1), property: 1, value: .null), fromEnd: 1, tag: 200),
            // `.changeSchema(.removeType)` encodes as 15, its tag, the table.
            patched("an unknown schema change", "unknown schema change tag 99",
                    event: .changeSchema(.removeType(table: 0)), fromEnd: 2, tag: 99),
        ]
    }

    /// A store's journal with two commits (release 1's pets), and the bytes
    /// of a third record that holds `payload`, checksum and all.
    static func journalWithNewerRecord(_ payload: NewerPayload) throws -> (url: URL, before: Data, record: [UInt8]) {
        let url = try PetJournal.versionOne()
        let before = try Data(contentsOf: url)
        let record = Self.record(payload.payload(3))
        try (before + record).write(to: url)
        return (url, before, record)
    }

    /// A journal record holding `payload`: its length and checksum, then it.
    static func record(_ payload: [UInt8]) -> [UInt8] {
        var record: [UInt8] = []
        let length = UInt32(payload.count)
        let crc = payload.withUnsafeBytes { JournalFormat.checksum(length: length, payload: $0) }
        for value in [length, crc] { withUnsafeBytes(of: value.littleEndian) { record += $0 } }
        return record + payload
    }

    static func isNewer(_ error: JournalError?, version: UInt64, offset: Int, detail: String) -> Bool {
        guard case .writtenByNewerVersion(version, UInt64(offset), let found) = error else { return false }
        return found.contains(detail)
    }

    @Test(arguments: NewerPayload.all)
    func aStoreRefusesToOpenAJournalANewerVersionWroteAndLeavesItUnchanged(_ payload: NewerPayload) throws {
        let (url, before, record) = try Self.journalWithNewerRecord(payload)
        let written = try Data(contentsOf: url)
        for types: [ObjectBase.Type] in [[PetV1.Pet.self], []] {
            var caught: StoreError?
            do {
                _ = try Store(configuration: .init(fileURL: url, durability: .none, objectTypes: types))
            } catch {
                caught = error
            }
            guard case .journal(let journalError) = caught else {
                Issue.record("expected the newer-version error, got \(String(describing: caught))")
                continue
            }
            #expect(Self.isNewer(journalError, version: 3, offset: before.count, detail: payload.detail), "\(journalError)")
            #expect(journalError.description.contains("written by a newer version of Chronicle"))
            #expect(!journalError.description.contains("damaged"))
            #expect(try Data(contentsOf: url) == written, "the journal is byte-for-byte unchanged")
        }
        // Opening for writing scans it; a checksummed record is never a torn tail.
        let journal = try Journal(fileURL: url, durability: .none)
        #expect(journal.lastVersion == 3 && journal.discardedTailBytes == 0)
        try journal.close()
        #expect(try Data(contentsOf: url) == written)
        #expect(record.count > 8)
    }

    @Test(arguments: NewerPayload.all)
    func aReaderReadsTheCommitsBeforeAndThenSaysANewerVersionWroteTheRest(_ payload: NewerPayload) throws {
        let (url, before, _) = try Self.journalWithNewerRecord(payload)
        let journal = try Journal(contentsOf: url)
        var reader = journal.reader()
        #expect(try reader.next()?.version == 1)
        #expect(try reader.next()?.version == 2)
        #expect { _ = try reader.next() } throws: { error in
            Self.isNewer(error as? JournalError, version: 3, offset: before.count, detail: payload.detail)
        }
        // The non-throwing sequence ends there and says why.
        var iterator = journal.commits().makeIterator()
        var versions: [UInt64] = []
        while let commit = iterator.next() { versions.append(commit.version) }
        #expect(versions == [1, 2])
        #expect(Self.isNewer(iterator.error, version: 3, offset: before.count, detail: payload.detail))
        #expect { _ = try journal.state(at: 3) } throws: { error in
            guard case .journal(let inner) = error as? StoreError else { return false }
            return Self.isNewer(inner, version: 3, offset: before.count, detail: payload.detail)
        }
        #expect(try journal.state(at: 2).version == 2, "the versions before it read as usual")
        // The payload alone says the same.
        let bytes = payload.payload(3)
        #expect { _ = try Commit(encoded: bytes) } throws: { error in
            (error as? CommitDecodingError)?.isWrittenByNewerVersion == true
        }
        #expect { _ = try Commit(encoded: Array(bytes.prefix(4))) } throws: { error in
            (error as? CommitDecodingError)?.isWrittenByNewerVersion == false
        }
    }

    @Test func aTornTailAfterANewerRecordIsCutButTheRecordIsKept() throws {
        let (url, before, record) = try Self.journalWithNewerRecord(NewerPayload.all[0])
        let kept = before + record
        try (kept + [0x20, 0, 0, 0, 1, 2, 3]).write(to: url)
        let journal = try Journal(fileURL: url, durability: .none)
        #expect(journal.lastVersion == 3)
        #expect(journal.discardedTailBytes == 7)
        try journal.close()
        #expect(try Data(contentsOf: url) == kept)
    }

    @Test func theChronicleToolSaysANewerVersionWroteTheJournal() throws {
        let (url, before, _) = try Self.journalWithNewerRecord(NewerPayload.all[0])
        let written = try Data(contentsOf: url)
        for command in [["verify", url.path], ["log", url.path], ["state", url.path]] {
            let run = try CLITests.run(command)
            #expect(run.status == 65, "\(command): \(run.err)")
            #expect(run.err.contains("version 3 of the journal (the record at byte \(before.count)) was written by a newer version"),
                    "\(command): \(run.err)")
        }
        #expect(try Data(contentsOf: url) == written)
    }

    @Test func aStoreThatMeetsANewerCommitAnotherProcessAppendedWritesNothingAfterIt() throws {
        let url = try PetJournal.versionOne()
        let store = try Store(configuration: .init(fileURL: url, durability: .none, objectTypes: [PetV1.Pet.self]))
        // A newer Chronicle sharing the file appends a commit this build cannot read.
        let before = try Data(contentsOf: url)
        let record = Self.record(NewerPayload.all[0].payload(3))
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(record))
        try handle.close()
        let written = try Data(contentsOf: url)
        #expect(written.count == before.count + record.count)
        #expect {
            try store.write { store.object(ofType: PetV1.Pet.self, forPrimaryKey: 1)!.age = 9 }
        } throws: { error in
            guard case .journal(let inner) = error as? StoreError else { return false }
            return Self.isNewer(inner, version: 3, offset: before.count, detail: "unknown event tag 16")
        }
        #expect(store.object(ofType: PetV1.Pet.self, forPrimaryKey: 1)?.age == 3)
        try? store.close()
        #expect(try Data(contentsOf: url) == written, "nothing was written after the newer commit, nothing cut")
    }
}
