import Chronicle
import ChronicleTesting
import Foundation
import Testing

/// Distinct values never print alike, in event descriptions and in
/// `expectCommit` messages.
@Suite("Value printing")
struct ValuePrintingTests {
    /// The events of a fresh store where one entry is booked with `edit`.
    static func descriptions(_ edit: @escaping (Entry) -> Void) throws -> [String] {
        try withFreshStore { store in
            let booked = entry(250, memo: "rent")
            edit(booked)
            try store.write { store.add(booked) }
            return try store.journalForReading.eventDescriptions()
        }
    }

    /// The false pass this suite exists for: two runs whose `Date()`s differ
    /// by less than a second described their journals alike.
    @Test func twoRunsWhoseDatesDifferDoNotDescribeAlike() throws {
        let first = try Self.descriptions { $0.bookedAt = Date(timeIntervalSince1970: 100.25) }
        let second = try Self.descriptions { $0.bookedAt = Date(timeIntervalSince1970: 100.5) }
        #expect(first != second)
    }

    /// Pairs of distinct values of each kind that a careless printer renders alike.
    static let distinctPairs: [(String, @Sendable (Entry) -> Void, @Sendable (Entry) -> Void)] = [
        ("dates a millisecond apart", { $0.bookedAt = Date(timeIntervalSince1970: 100) },
         { $0.bookedAt = Date(timeIntervalSince1970: 100.001) }),
        ("dates one step of a Double apart", { $0.bookedAt = Date(timeIntervalSinceReferenceDate: 1) },
         { $0.bookedAt = Date(timeIntervalSinceReferenceDate: 1.0.nextUp) }),
        ("a string with a quote and two strings", { $0.memo = #"a", "b"# }, { $0.memo = "a" }),
        ("a newline and its escape", { $0.memo = "a\nb" }, { $0.memo = #"a\nb"# }),
        ("data of one length", { $0.receipt = Data([1, 2, 3]) }, { $0.receipt = Data([1, 2, 4]) }),
        ("long data differing in the last byte", { $0.receipt = Data(repeating: 7, count: 100) },
         { $0.receipt = Data(repeating: 7, count: 99) + [8] }),
        ("doubles", { $0.rate = 0.1 }, { $0.rate = 0.1.nextUp }),
        ("zero and minus zero", { $0.rate = 0.0 }, { $0.rate = -0.0 }),
    ]

    @Test(arguments: distinctPairs.indices)
    func distinctValuesOfEveryKindDescribeDifferently(pair: Int) throws {
        let (kind, first, second) = Self.distinctPairs[pair]
        let firstLines = try Self.descriptions(first), secondLines = try Self.descriptions(second)
        #expect(firstLines != secondLines, "\(kind)")
    }

    @Test func valuesPrintAsSwiftWouldWriteThem() throws {
        let lines = try Self.descriptions { entry in
            entry.memo = #"a", "b"#
            entry.bookedAt = Date(timeIntervalSinceReferenceDate: 757_382_400.25)
            entry.receipt = Data([0xCA, 0xFE])
        }
        let create = try #require(lines.last)
        #expect(create.contains(#"memo: "a\", \"b""#))
        #expect(create.contains("bookedAt: 2025-01-01T00:00:00.250Z (757382400.25 s since 2001)"))
        #expect(create.contains("receipt: Data(2 bytes: cafe)"))
        let long = try Self.descriptions { $0.receipt = Data(0..<100) }
        #expect(long.last?.contains("receipt: Data(100 bytes: 000102030405060708090a0b0c0d0e0f…, FNV-1a ") == true)
    }

    @Test(.freshStore) func mapKeysAreQuotedAndEscaped() throws {
        let store = TestStore.current
        let ann = contact("Ann")
        try store.write { store.add(ann) }
        try store.write { ann.scores[#"say "hi""#] = 1 }
        let events = try store.lastCommitEvents()
        #expect(events == [#"set Contact#1.scores["say \"hi\""]: ∅ → 1"#])
    }

    @Test(.freshStore) func aMessageShowsTheMemoThatDiffers() throws {
        let store = TestStore.current
        let rent = entry(250, memo: "rent")
        try store.write { store.add(rent) }
        try withKnownIssue {
            try expectCommit(in: store, changes: [.set(rent, \.memo, to: #"a", "b"#)]) {
                try store.write { rent.memo = "a" }
            }
        } matching: { issue in
            text(of: issue) == #"""
                Commits did not change what was expected (1 difference):
                  Entry#1.memo: expected "a\", \"b", actual "a" (was "rent")
                Committed (version 2):
                  set Entry#1.memo: "rent" → "a"
                """#
        }
    }

    @Test(.freshStore) func aMessageShowsTheDatesThatDiffer() throws {
        let store = TestStore.current
        let rent = entry(250)
        try store.write { store.add(rent) }
        try withKnownIssue {
            try expectCommit(in: store, changes: [.set(rent, \.bookedAt, to: Date(timeIntervalSinceReferenceDate: 100))]) {
                try store.write { rent.bookedAt = Date(timeIntervalSinceReferenceDate: 100.5) }
            }
        } matching: { issue in
            text(of: issue).contains(
                "Entry#1.bookedAt: expected 2001-01-01T00:01:40.000Z (100.0 s since 2001), "
                    + "actual 2001-01-01T00:01:40.500Z (100.5 s since 2001) (was 2025-01-01T00:00:00.000Z (757382400.0 s since 2001))")
        }
    }
}
