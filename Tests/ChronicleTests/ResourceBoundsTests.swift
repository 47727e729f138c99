import Foundation
import Testing
@testable import Chronicle

/// Memory stays bounded by what is observed or folded, never by how much
/// happened or by what a file claims.
@Suite("Resource bounds")
struct ResourceBoundsTests {
    /// An object stream whose consumer never reads coalesces per property:
    /// after 2,000 commits it holds at most one pending change per property.
    @Test func anUnreadObjectStreamHoldsAtMostOneChangePerProperty() async throws {
        let store = try scratchStore()
        let all = AllTypes()
        try store.write { store.add(all) }
        let stream = all.changes()
        let propertyCount = try ClassMetadata.of(AllTypes.self).properties.count
        for round in 1...2_000 {
            try store.write {
                all.int = round
                all.string = "s\(round)"
                all.numbers.append(round)
                if round % 3 == 0 { all.optDouble = Double(round) }
            }
            #expect(stream.subscription.observer.buffer.pendingCount <= propertyCount)
        }
        #expect(stream.subscription.observer.buffer.pendingCount == 4)
        // What is pending is the whole story: oldest old value, newest new value.
        var iterator = stream.makeAsyncIterator()
        guard case .change(_, let properties)? = await iterator.next() else {
            Issue.record("expected the coalesced change")
            return
        }
        let int = try #require(properties.first { $0.name == "int" })
        #expect(int.oldValue as? Int == 0 && int.newValue as? Int == 2_000)
        #expect(stream.subscription.observer.buffer.pendingCount == 0)
    }

    /// A collection stream whose consumer never reads keeps one snapshot and
    /// the set of modified elements (bounded by the collection), not one
    /// entry per commit: it then delivers one update.
    @Test func anUnreadCollectionStreamCoalescesIntoOneUpdate() async throws {
        let store = try scratchStore()
        try store.write { for id in 0..<10 { store.create(Counter.self, value: ["id": id]) } }
        var iterator = store.objects(Counter.self).changes().makeAsyncIterator()
        guard case .initial? = await iterator.next() else { Issue.record("expected .initial"); return }
        let counters = Array(store.objects(Counter.self))
        for round in 1...1_000 {
            try store.write { counters[round % 10].value = round }
        }
        guard case .update(_, let deletions, let insertions, let modifications)? = await iterator.next() else {
            Issue.record("expected one coalesced update")
            return
        }
        #expect(deletions.isEmpty && insertions.isEmpty && modifications.sorted() == Array(0..<10))
    }

    /// Storage that records the largest single read the journal asked of it.
    final class MeasuringStorage: JournalStorage, @unchecked Sendable {
        let inner: InMemoryStorage
        let largestRead = Locked(0)
        let totalRead = Locked(0)
        init(_ bytes: [UInt8]) { inner = InMemoryStorage(bytes: bytes) }
        var path: String { inner.path }
        func size() -> Int { inner.size() }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
            largestRead.withLock { $0 = max($0, buffer.count) }
            let read = inner.read(into: buffer, at: offset)
            totalRead.withLock { $0 += read }
            return read
        }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) { inner.write(bytes, at: offset) }
        func sync() {}
        func truncate(to size: Int) { inner.truncate(to: size) }
        func unlock() {}
    }

    /// Opening streams the journal through a fixed-size buffer: no read is
    /// larger than one chunk (or one record, if a record is larger), the
    /// bytes are read about once, and a hostile length field is checked
    /// against the bytes that remain before anything is allocated.
    @Test func openingAJournalStreamsInChunks() throws {
        let journal = Journal.inMemory(durability: .none)
        for version in 1...3_000 { try journal.append(JournalFixtures.commit(UInt64(version), payload: 1_000)) }
        let bytes = try journal.core.storage.read(count: journal.core.storage.size(), at: 0)
        #expect(bytes.count > 3_000_000)
        let storage = MeasuringStorage(bytes)
        let scan = try JournalScan.scan(storage, url: URL(fileURLWithPath: "/measured"))
        #expect(scan.offsets.count == 3_000)
        #expect(storage.largestRead.withLock { $0 } <= RecordCursor.chunkSize)
        #expect(storage.totalRead.withLock { $0 } < bytes.count + bytes.count / 10)

        // A torn tail whose length field claims 1 GiB - 1: nothing that large is read or allocated.
        var claimed = bytes
        claimed += [0xFF, 0xFF, 0xFF, 0x3F, 0, 0, 0, 0] + [UInt8](repeating: 7, count: 100)
        let hostile = MeasuringStorage(claimed)
        let cut = try JournalScan.scan(hostile, url: URL(fileURLWithPath: "/hostile"))
        #expect(cut.tornBytes == 108)
        #expect(hostile.largestRead.withLock { $0 } <= RecordCursor.chunkSize + JournalFormat.frameHeaderSize)
    }
}
