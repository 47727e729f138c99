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
/// Make one with ``Testing/Trait/freshStore`` or
/// ``Testing/Trait/freshStore(objectTypes:seed:clockStart:clockStep:)``.
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

    /// On a suite, the trait applies to each test in it.
    public var isRecursive: Bool { true }

    /// Runs `function` with a new store, clock and identifier generator.
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withFreshStore(named: test.name, objectTypes: objectTypes, seed: seed,
                                 clock: TestClock(start: clockStart, step: clockStep)) { _ in
            try await function()
        }
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
}
