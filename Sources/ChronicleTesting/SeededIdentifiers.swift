import Chronicle
import Foundation

/// Deterministic `UUID`s and ``ObjectId``s from a seed: the same seed gives
/// the same sequence on every run and every platform.
///
/// The fresh-store trait and `withFreshStore` install one for the test
/// (seed 0 unless you pass another), so `@Persisted` `UUID` and `ObjectId`
/// defaults and ``ObjectId/generate()`` are reproducible:
///
/// ```swift
/// let ids = SeededIdentifiers(seed: 7)
/// ids.nextUUID()      // the same UUID every run
/// ids.nextObjectId()  // the same ObjectId every run
/// ```
///
/// UUIDs are version 4 (random) in form. ObjectIds keep their usual layout —
/// a timestamp (``timestamp``), five seeded bytes and a counter starting at
/// one — so they sort in creation order, as generated ones do.
///
/// A generator is `Sendable`; its sequence is shared by everyone who reads it,
/// so identifiers made by concurrent tasks are distinct but their order
/// depends on scheduling.
public final class SeededIdentifiers: Sendable {
    /// The seed the sequences derive from.
    public let seed: UInt64
    /// The time written into generated ``ObjectId``s.
    public let timestamp: Date
    private let state: Lock<(uuids: SeededRandomNumberGenerator, counter: UInt32)>
    private let objectIdRandom: [UInt8]

    /// Sequences derived from `seed`; ObjectIds carry `timestamp`.
    public init(seed: UInt64 = 0, timestamp: Date = TestClock.defaultStart) {
        self.seed = seed
        self.timestamp = timestamp
        var random = SeededRandomNumberGenerator(seed: seed ^ 0x0B1E_C71D_0B1E_C71D)
        let bytes = random.next()
        objectIdRandom = (0..<5).map { UInt8(truncatingIfNeeded: bytes >> (8 * UInt64($0))) }
        state = Lock((SeededRandomNumberGenerator(seed: seed), 0))
    }

    /// The next UUID of the sequence.
    @Sendable public func nextUUID() -> UUID {
        let (high, low) = state.withLock { ($0.uuids.next(), $0.uuids.next()) }
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
        bytes[6] = bytes[6] & 0x0F | 0x40   // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80   // RFC 4122 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The next ObjectId of the sequence.
    @Sendable public func nextObjectId() -> ObjectId {
        let count = state.withLock { state in
            state.counter = (state.counter + 1) & 0xFF_FFFF
            return state.counter
        }
        let seconds = UInt32(clamping: Int64(timestamp.timeIntervalSince1970.rounded(.down)))
        let bytes = [UInt8(seconds >> 24), UInt8(seconds >> 16 & 0xFF), UInt8(seconds >> 8 & 0xFF), UInt8(seconds & 0xFF)]
            + objectIdRandom
            + [UInt8(count >> 16), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        return ObjectId(bytes: bytes)!
    }
}
