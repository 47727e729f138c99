import Chronicle
import ChronicleTesting
import Foundation
import Testing

/// A ledger whose `book` creates the entry itself, as most create paths do:
/// the test has no instance to name beforehand.
struct Ledger {
    let store: Store

    @discardableResult
    func book(_ amount: Int, memo: String = "", on date: Date = Date(timeIntervalSinceReferenceDate: 0)) throws -> Entry {
        let booked = entry(amount, memo: memo)
        booked.bookedAt = date
        try store.write { store.add(booked) }
        return booked
    }
}

@Suite("Creation matchers and exhaustivity", .freshStore)
struct CreationMatcherTests {
    let store = TestStore.current
    var ledger: Ledger { Ledger(store: store) }

    @Test func aCreatedObjectIsNamedByTypeAndValues() throws {
        try expectCommit(in: store, changes: [.created(Entry.self, [\.amount: 250, \.memo: "rent", \.bookedAt: .any])]) {
            try ledger.book(250, memo: "rent", on: Date(timeIntervalSince1970: 5))
        }
        try expectCommit(in: store, changes: [.created(Entry.self)]) { try ledger.book(1) }
    }

    @Test func aCreatedObjectIsNamedByACondition() throws {
        try expectCommit(in: store, changes: [.created(Entry.self, where: { $0.amount > 200 && $0.memo.hasPrefix("re") })]) {
            try ledger.book(250, memo: "rent")
        }
    }

    @Test func literalsMatchPropertiesOfEveryNumericTypeAndValuesMatchExactly() throws {
        let date = Date(timeIntervalSince1970: 1_000.5)
        try expectCommit(in: store, changes: [
            .created(Entry.self, [\.rate: 2, \.receipt: nil, \.bookedAt: .value(date)]),
        ]) {
            let booked = entry(0)
            booked.rate = 2.0
            booked.bookedAt = date
            try store.write { store.add(booked) }
        }
    }

    @Test func matchersPairWithObjectsWhateverTheOrderTheyAreListedIn() throws {
        // Greedy pairing would give the first entry to `.created(Entry.self)`
        // and leave nothing for the one asking for 250.
        try expectCommit(in: store, changes: [.created(Entry.self), .created(Entry.self, [\.amount: 250])]) {
            try ledger.book(250)
            try ledger.book(100)
        }
    }

    @Test func aCreationThatNeverHappenedSaysSo() throws {
        withKnownIssue {
            expectCommit(in: store, changes: [.created(Entry.self, [\.amount: 250])]) {}
        } matching: { issue in
            text(of: issue) == """
                Commits did not change what was expected (1 difference):
                  expected a creation of Entry with amount: 250 that never happened
                Nothing was committed.
                """
        }
    }

    @Test func aCreationWithOtherValuesShowsThem() throws {
        try withKnownIssue {
            try expectCommit(in: store, changes: [.created(Entry.self, [\.amount: 250, \.memo: "rent"])]) {
                _ = try ledger.book(300, memo: "rent")
            }
        } matching: { issue in
            text(of: issue) == """
                Commits did not change what was expected (2 differences):
                  expected a creation of Entry with amount: 250, memo: "rent" that never happened; Entry#1 was created with amount: 300
                  unexpected: created Entry#1
                Committed (version 1):
                  define Entry(_id: ObjectId (primary key), amount: Int, memo: String, bookedAt: Date, receipt: Data?, rate: Double)
                  create Entry#1 {_id: ObjectId(6774858011fe072fa5000001), amount: 300, memo: "rent", \
                bookedAt: 2001-01-01T00:00:00.000Z (0.0 s since 2001), receipt: nil, rate: 0.0}
                """
        }
    }

    @Test func aConditionThatNoCreatedObjectMeetsNamesWhereItIs() throws {
        try withKnownIssue {
            try expectCommit(in: store, changes: [.created(Entry.self, where: { $0.amount < 0 })]) {
                _ = try ledger.book(5)
            }
        } matching: { issue in
            text(of: issue).contains(
                "expected a creation of Entry matching the condition at CreationMatcherTests.swift:\(#line - 5) "
                    + "that never happened; Entry#1 was created and does not match")
        }
    }

    @Test func anObjectTheCodeForgotToAddIsACreationThatNeverHappened() {
        let forgotten = entry(250)
        withKnownIssue {
            expectCommit(in: store, changes: [.created(forgotten)]) {
                _ = forgotten   // the code under test never adds it
            }
        } matching: { issue in
            text(of: issue) == """
                Commits did not change what was expected (1 difference):
                  expected a creation of Entry that never happened: the object was never added to the store
                Nothing was committed.
                """
        }
    }

    @Test func anyValueMeansThePropertyChanged() throws {
        let rent = try ledger.book(250)
        try expectCommit(in: store, changes: [.set(rent, \.bookedAt, to: .any)]) {
            try store.write { rent.bookedAt = Date(timeIntervalSince1970: 9) }
        }
        try withKnownIssue {
            try expectCommit(in: store, changes: [.set(rent, \.bookedAt, to: .any), .set(rent, \.amount, to: 300)]) {
                try store.write { rent.amount = 300 }
            }
        } matching: { issue in
            text(of: issue).contains(
                "Entry#1.bookedAt: expected any value, but it did not change (it is 1970-01-01T00:00:09.000Z (-978307191.0 s since 2001))")
        }
    }

    @Test func keyPathsThroughOtherObjectsAreRejectedWithAReason() throws {
        try withKnownIssue {
            try expectCommit(in: store, changes: [.created(Contact.self, [\.home?.city: "Oslo"])]) {
                let ann = contact("Ann")
                ann.home = Place()
                ann.home?.city = "Oslo"
                try store.write { store.add(ann) }
            }
        } matching: { issue in
            text(of: issue).contains("reads home.city, a property of another object; expect a change of that object")
        }
    }

    @Test func nonExhaustiveExpectationsCheckOnlyWhatIsListed() throws {
        let rent = try ledger.book(250, memo: "rent")
        try expectCommit(in: store, changes: [.set(rent, \.amount, to: 260)], exhaustivity: .off) {
            try store.write {
                rent.amount = 260
                rent.memo = "rent, March"
            }
            try ledger.book(5)
        }
        try withKnownIssue {
            try expectCommit(in: store, changes: [.set(rent, \.amount, to: 270)], exhaustivity: .off) {
                try store.write { rent.memo = "rent, April" }
            }
        } matching: { issue in
            text(of: issue).hasPrefix("""
                Commits did not change what was expected (1 difference):
                  Entry#1.amount: expected 270, but it did not change (it is 260)
                Committed (version 4):
                """)
        }
    }

    @Test func theAsyncFormTakesExhaustivityToo() async throws {
        let rent = try ledger.book(250)
        try await expectCommit(in: store, changes: [.created(Entry.self, [\.amount: 1])], exhaustivity: .off) {
            try await store.asyncWrite {
                rent.amount = 0
                store.add(entry(1))
            }
        }
    }
}
