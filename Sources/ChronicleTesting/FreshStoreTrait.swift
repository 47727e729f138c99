import Chronicle
import Foundation
import Testing

/// A trait that gives each test a fresh in-memory store, reachable as
/// ``TestStore/current``, with a deterministic clock and seeded identifiers.
///
/// On a test, the test gets one store (each case of a parameterized test
/// gets its own). On a suite, every test in it does:
///
/// ```swift
/// @Suite(.freshStore(objectTypes: [Person.self]))
/// struct PersonTests {
///     @Test func rename() throws {
///         let store = TestStore.current
///         …
///     }
/// }
/// ```
///
/// Stores are independent of each other, so tests with this trait can run
/// in parallel. Within a test, commits are timestamped by a ``TestClock``
/// (``TestClock/defaultStart``, then one `clockStep` later each commit) and
/// `UUID`/``ObjectId`` defaults come from ``SeededIdentifiers``: run the
/// test twice and its journal is byte-for-byte the same.
///
/// Make one with ``Testing/Trait/freshStore``,
/// ``Testing/Trait/freshStore(objectTypes:seed:clockStart:clockStep:)``, or
/// ``Testing/Trait/freshStore(journal:bundle:seed:clockStart:clockStep:filePath:)``
/// to start from a recorded journal.
public struct FreshStoreTrait: TestTrait, SuiteTrait, TestScoping {
    /// Model classes registered when the store opens (one `"schema"` commit);
    /// `nil` registers each type on first use.
    public var objectTypes: [ObjectBase.Type]?
    /// The seed of the test's `UUID` and ``ObjectId`` sequences.
    public var seed: UInt64
    /// The timestamp of the store's first commit.
    public var clockStart: Date
    /// How far the clock advances per commit.
    public var clockStep: Duration

    /// The recorded journal the store starts from; `nil` for an empty store.
    var fixture: Result<URL, FixtureError>?
    /// Whether the seed is derived from the fixture (none was given).
    var seedsFromFixture = false

    /// On a suite, the trait applies to each test in it.
    public var isRecursive: Bool { true }

    /// Runs `function` with a new store, clock and identifier generator.
    ///
    /// - Throws: ``FixtureError`` when the fixture journal is missing; what
    ///   reading and replaying it throws.
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard let fixture else {
            try await withFreshStore(named: test.name, objectTypes: objectTypes, seed: seed,
                                     clock: TestClock(start: clockStart, step: clockStep)) { _ in
                try await function()
            }
            return
        }
        let url = try fixture.get()
        let scope = try Fixture.makeScope(try Fixture.load(url), seed: seedsFromFixture ? try Fixture.seed(of: url) : seed,
                                          clockStart: clockStart, clockStep: clockStep)
        try await withScope(scope) { try await function() }
    }
}

extension Trait where Self == FreshStoreTrait {
    /// A fresh in-memory store for each test, with seed 0 and the default clock.
    public static var freshStore: Self { freshStore() }

    /// A fresh in-memory store for each test.
    ///
    /// - Parameters:
    ///   - objectTypes: Model classes to register when the store opens.
    ///   - seed: The seed of the `UUID` and ``ObjectId`` sequences.
    ///   - clockStart: The first commit's timestamp.
    ///   - clockStep: How far the clock advances per commit.
    public static func freshStore(objectTypes: [ObjectBase.Type]? = nil, seed: UInt64 = 0,
                                  clockStart: Date = TestClock.defaultStart,
                                  clockStep: Duration = .seconds(1)) -> Self {
        FreshStoreTrait(objectTypes: objectTypes, seed: seed, clockStart: clockStart, clockStep: clockStep)
    }

    /// A store for each test that starts as a recorded journal left it: the
    /// fixture replayed into a new in-memory store, which is
    /// ``TestStore/current``.
    ///
    /// ```swift
    /// @Test(.freshStore(journal: "bank.jsonl")) func overdraft() throws {
    ///     let accounts = TestStore.current.objects(Account.self)   // as recorded
    /// }
    /// ```
    ///
    /// The fixture is a JSON Lines export (`.jsonl`) or a binary journal,
    /// recorded with ``Chronicle/Store/recordFixture(_:filePath:)``. Each
    /// test replays it anew, so tests may change their store freely.
    ///
    /// The test clock starts at `clockStart` or one `clockStep` after the
    /// fixture's last commit, whichever is later, so new commits follow the
    /// recorded ones. Without a `seed`, the identifiers are seeded from the
    /// fixture's bytes — not the seed it was recorded with, whose sequence
    /// its objects already use.
    ///
    /// - Parameters:
    ///   - name: The fixture's file name.
    ///   - bundle: The bundle whose resources hold it — the test target's
    ///     `Bundle.module` when the target declares
    ///     `resources: [.copy("Fixtures")]`; without one, the fixture is
    ///     `Fixtures/<name>` next to the test file.
    ///   - seed: The seed of the `UUID` and ``ObjectId`` sequences.
    ///   - clockStart: The earliest time of the test clock.
    ///   - clockStep: How far the clock advances per commit.
    ///   - filePath: The test file; its `Fixtures` folder is searched without a bundle.
    public static func freshStore(journal name: String, bundle: Bundle? = nil, seed: UInt64? = nil,
                                  clockStart: Date = TestClock.defaultStart, clockStep: Duration = .seconds(1),
                                  filePath: String = #filePath) -> Self {
        var trait = FreshStoreTrait(objectTypes: nil, seed: seed ?? 0, clockStart: clockStart, clockStep: clockStep)
        trait.fixture = Fixture.locate(name, bundle: bundle, filePath: filePath)
        trait.seedsFromFixture = seed == nil
        return trait
    }

    /// A store for each test that starts as the journal at `url` left it;
    /// see ``freshStore(journal:bundle:seed:clockStart:clockStep:filePath:)``.
    public static func freshStore(journal url: URL, seed: UInt64? = nil,
                                  clockStart: Date = TestClock.defaultStart, clockStep: Duration = .seconds(1)) -> Self {
        var trait = FreshStoreTrait(objectTypes: nil, seed: seed ?? 0, clockStart: clockStart, clockStep: clockStep)
        trait.fixture = FileManager.default.fileExists(atPath: url.path) ? .success(url) : .failure(.notFound(url.path))
        trait.seedsFromFixture = seed == nil
        return trait
    }
}
