import Chronicle
import Foundation

/// Runs `body` with a fresh in-memory store whose commit timestamps (and
/// ``Chronicle/ModelClock/now()``) come from `clock` and whose new `UUID`s
/// and ``ObjectId``s come from a generator seeded with `seed` — for code that cannot use the ``Testing/Trait/freshStore``
/// trait (helpers, parameterized setups, several stores in one test).
///
/// ```swift
/// let journal = try withFreshStore(seed: 7) { store in
///     try store.write { store.add(Person()) }
///     return store.journalForReading
/// }
/// ```
///
/// Inside `body`, ``TestStore/current`` is the same store. The store is an
/// ordinary in-memory store: nothing to clean up.
///
/// - Parameters:
///   - objectTypes: Model classes to register up front (one `"schema"`
///     commit); `nil` registers each type on first use.
///   - seed: The seed of the identifier sequences.
///   - clock: The clock for commit timestamps.
///   - body: The code to run with the store.
/// - Returns: What `body` returns.
/// - Throws: What opening the store or `body` throws.
public func withFreshStore<R>(objectTypes: [ObjectBase.Type]? = nil, seed: UInt64 = 0, clock: TestClock = TestClock(),
                              _ body: (Store) throws -> R) throws -> R {
    let scope = try TestStore.makeScope(name: "withFreshStore", objectTypes: objectTypes, seed: seed, clock: clock)
    return try TestStore.$scope.withValue(scope) {
        try IdentifierGeneration.withUUIDGenerator(scope.identifiers.nextUUID) {
            try IdentifierGeneration.withObjectIdGenerator(scope.identifiers.nextObjectId) {
                try ModelClock.withClock({ scope.clock.date }) {
                    try body(scope.store)
                }
            }
        }
    }
}

/// The asynchronous form of
/// ``withFreshStore(objectTypes:seed:clock:_:)-(_,_,_,(Store)throws->R)``:
/// `body` may suspend, and tasks it creates (other than detached ones) see
/// the same store and identifier generators.
///
/// - Parameters:
///   - objectTypes: Model classes to register up front; `nil` registers each on first use.
///   - seed: The seed of the identifier sequences.
///   - clock: The clock for commit timestamps.
///   - isolation: The caller's actor, inherited by `body`.
///   - body: The code to run with the store.
/// - Returns: What `body` returns.
/// - Throws: What opening the store or `body` throws.
public func withFreshStore<R>(objectTypes: [ObjectBase.Type]? = nil, seed: UInt64 = 0, clock: TestClock = TestClock(),
                              isolation: isolated (any Actor)? = #isolation,
                              _ body: (Store) async throws -> R) async throws -> R {
    try await withFreshStore(named: "withFreshStore", objectTypes: objectTypes, seed: seed, clock: clock, body)
}

/// The shared implementation of the asynchronous helper and the trait.
func withFreshStore<R>(named name: String, objectTypes: [ObjectBase.Type]?, seed: UInt64, clock: TestClock,
                       isolation: isolated (any Actor)? = #isolation,
                       _ body: (Store) async throws -> R) async throws -> R {
    let scope = try TestStore.makeScope(name: name, objectTypes: objectTypes, seed: seed, clock: clock)
    return try await withScope(scope) { try await body(scope.store) }
}

/// Runs `body` with `scope` as ``TestStore``'s, its identifier generators
/// and its clock answering ``Chronicle/ModelClock/now()``.
func withScope<R>(_ scope: TestStore.Scope, isolation: isolated (any Actor)? = #isolation,
                  _ body: () async throws -> R) async rethrows -> R {
    try await TestStore.$scope.withValue(scope) {
        try await PackageHooks.withIdentifierGenerators(uuid: scope.identifiers.nextUUID,
                                                        objectId: scope.identifiers.nextObjectId) {
            try await ModelClock.withClock({ scope.clock.date }) {
                try await body()
            }
        }
    }
}
