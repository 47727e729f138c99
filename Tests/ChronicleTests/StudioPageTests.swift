import Foundation
import Testing
@testable import Chronicle

/// The Studio page as written: self-contained, journal contents escaped,
/// data in chunks and snapshots, damage reported. What a browser shows is
/// checked in `StudioBrowserTests`.
@Suite("Studio page")
struct StudioPageTests {
    @Test func pageIsSelfContained() throws {
        let (store, _) = try StudioFixtures.store()
        let html = store.studioPage()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        for reference in ["src=", "href=\"http", "@import", "url(", "//cdn", "fetch(", "XMLHttpRequest"] {
            #expect(!html.contains(reference), "the page refers to something outside it: \(reference)")
        }
        #expect(html.contains("default-src 'none'"), "a content security policy forbids loading anything")
        let meta = try #require(try StudioFixtures.block("meta", in: html) as? [String: Any])
        #expect(meta["first"] as? Int == 1)
        #expect(meta["last"] as? Int == 11)
        #expect(meta["problems"] as? [String] == [])
    }

    @Test func hostileStringsStayInsideTheirJSON() throws {
        let hostile = "</script><script>document.title='pwned'</script><!-- & \u{2028}\u{2029} <img src=x onerror=alert(1)>"
        let journal = Journal.inMemory(durability: .none)
        let type = TypeSchema(name: "T<b>", properties: [PropertySchema(name: "p\"'", type: .string)])
        try journal.append(Commit(version: 1, timestamp: Date(timeIntervalSince1970: 0), label: hostile,
                                  metadata: [hostile: hostile], events: [.defineType(type), .create(table: 0, key: ObjectKey(1), values: [.string(hostile)])]))
        let html = journal.studioPage()
        // Only the page's own script elements: one per data block, and the script.
        #expect(html.components(separatedBy: "<script").count - 1 == html.components(separatedBy: "</script>").count - 1)
        #expect(!html.contains("document.title='pwned'</script>"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<!--"))
        #expect(!html.contains("\u{2028}"))
        let summary = try #require(try StudioFixtures.block("s0", in: html) as? [String: Any])
        #expect(summary["l"] as? [String] == [hostile], "the label reads back exactly")
        let snapshot = try #require(try StudioFixtures.block("k1", in: html) as? [String: Any])
        let objects = try #require(snapshot["o"] as? [[[Any]]])
        #expect(objects[0][0][1] as? [String] == [hostile])
    }

    @Test func hugeStringsAreBounded() throws {
        let journal = Journal.inMemory(durability: .none)
        let type = TypeSchema(name: "Blob", properties: [PropertySchema(name: "text", type: .string)])
        let huge = String(repeating: "x", count: 300_000)
        try journal.append(Commit(version: 1, timestamp: Date(timeIntervalSince1970: 0), label: huge,
                                  events: [.defineType(type), .create(table: 0, key: ObjectKey(1), values: [.string(huge)])]))
        try journal.append(Commit(version: 2, timestamp: Date(timeIntervalSince1970: 1),
                                  events: [.set(table: 0, key: ObjectKey(1), property: 0, value: .string(huge + "y"))]))
        let html = journal.studioPage()
        #expect(html.utf8.count < 300_000 + 100_000, "the value is bounded; the label is kept whole")
        let changes = try #require(try StudioFixtures.block("e0", in: html) as? [Any])
        let second = try #require(changes[1] as? [[Any]])
        let delta = try #require((second[1][0] as? [Any])?[2] as? [[Any]])
        let old = try #require(delta[0][1] as? [String: Any]), new = try #require(delta[0][2] as? [String: Any])
        #expect(old["n"] as? Int == 300_000)
        #expect(new["n"] as? Int == 300_001)
        #expect(old["h"] as? Int != new["h"] as? Int, "strings that differ past the shown start still differ")
    }

    @Test func largeJournalsAreChunkedWithSnapshots() throws {
        let journal = Journal.inMemory(durability: .none)
        let type = TypeSchema(name: "Counter", properties: [PropertySchema(name: "value", type: .int)])
        try journal.append(Commit(version: 1, timestamp: Date(timeIntervalSince1970: 0),
                                  events: [.defineType(type), .create(table: 0, key: ObjectKey(1), values: [.int(0)])]))
        let total: UInt64 = 2 * UInt64(StudioPageBuilder.commitsPerChunk) + 500
        for version in 2...total {
            try journal.append(Commit(version: version, timestamp: Date(timeIntervalSince1970: Double(version)), label: "bump",
                                      events: [.set(table: 0, key: ObjectKey(1), property: 0, value: .int(Int64(version)))]))
        }
        let html = journal.studioPage()
        for id in ["s0", "e0", "s1", "e1", "s2", "e2"] { #expect(html.contains("id=\"\(id)\""), "block \(id)") }
        #expect(!html.contains("id=\"s3\""))
        let meta = try #require(try StudioFixtures.block("meta", in: html) as? [String: Any])
        let snapshots = try #require(meta["snapshots"] as? [Int])
        #expect(snapshots.first == 1, "a snapshot follows the commit that defined the type")
        #expect(snapshots.last == Int(total), "and one closes the journal")
        let last = try #require(try StudioFixtures.block("k\(total)", in: html) as? [String: Any])
        #expect((last["o"] as? [[[Any]]])?[0][0][1] as? [Int] == [Int(total)])
    }

    @Test func damagedJournalIsReportedOnThePage() throws {
        let url = try StudioFixtures.damagedJournal()
        #expect(throws: JournalError.self) { try Journal(contentsOf: url) }
        let page = url.deletingLastPathComponent().appendingPathComponent("page.html")
        try Journal.writeStudioPage(ofJournalAt: url, to: page)
        let html = try String(contentsOf: page, encoding: .utf8)
        let meta = try #require(try StudioFixtures.block("meta", in: html) as? [String: Any])
        #expect(meta["last"] as? Int == 3, "the intact versions are shown")
        let problems = try #require(meta["problems"] as? [String])
        #expect(problems.count == 1)
        #expect(problems.first?.contains("damaged at byte") == true)
        #expect(problems.first?.contains("after version 3") == true)
    }

    @Test func notAJournalIsAnError() throws {
        let directory = try JournalFixtures.temporaryDirectory()
        let file = directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: file)
        #expect(throws: JournalError.notAJournal(file)) {
            try Journal.writeStudioPage(ofJournalAt: file, to: directory.appendingPathComponent("page.html"))
        }
    }

    @Test func unwritablePageIsATypedError() throws {
        let (store, _) = try StudioFixtures.store()
        let target = URL(fileURLWithPath: "/nonexistent-directory-\(UUID().uuidString)/page.html")
        #expect {
            try store.writeStudioPage(to: target)
        } throws: { error in
            guard case .io(_, let code, let path) = error as? JournalError else { return false }
            return code == ENOENT && path == target.path
        }
    }

    @Test func writtenPageEqualsTheStringPage() throws {
        let (store, url) = try StudioFixtures.store()
        let page = url.deletingLastPathComponent().appendingPathComponent("page.html")
        try store.writeStudioPage(to: page)
        #expect(try String(contentsOf: page, encoding: .utf8) == store.studioPage(), "and the page is deterministic")
    }
}
