import ChronicleTesting

/// A tiny seeded generator, so randomized tests are reproducible.
typealias SplitMix64 = SeededRandomNumberGenerator
