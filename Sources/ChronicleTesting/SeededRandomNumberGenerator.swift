/// A random number generator whose whole output is fixed by its seed
/// (SplitMix64, by Steele, Lea and Flood), for randomized tests that
/// reproduce: print the seed of a failing run and run it again.
///
/// ```swift
/// @Test(arguments: [UInt64(11), 12, 13]) func randomEdits(seed: UInt64) throws {
///     var random = SeededRandomNumberGenerator(seed: seed)
///     let count = Int.random(in: 1...10, using: &random)
///     …
/// }
/// ```
///
/// It is also the source of ``SeededIdentifiers``. Not for cryptography.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is determined by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
