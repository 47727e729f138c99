internal import ChronicleSystem

/// CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`), the checksum that
/// frames every journal record.
///
/// With the processor's own instruction where it has one (SSE 4.2 on
/// x86-64, found at run time; ARMv8's CRC extension where the compiler
/// targets it, as on every Apple arm64 processor): eight bytes an
/// instruction, through the package's C target (`ChronicleSystem`), since
/// Swift cannot emit it. Elsewhere the slicing-by-8 table method, written
/// here: eight table look-ups per eight input bytes. Both give the same
/// checksum (a test compares them).
///
/// - Complexity: O(*n*) in the number of bytes.
enum CRC32C {
    /// Whether ``checksum(_:continuing:)`` uses the processor's instruction.
    static let usesHardware = chronicle_crc32c_hardware_available() != 0

    /// Eight 256-entry tables, one after another in one buffer; table 0 is
    /// the classic byte-at-a-time table. Flat, so the inner loop does
    /// unchecked pointer arithmetic instead of eight bounds-checked arrays.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
            }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            var crc = tables[byte]
            for slice in 1..<8 {
                crc = tables[Int(crc & 0xFF)] ^ (crc >> 8)
                tables[slice * 256 + byte] = crc
            }
        }
        return tables
    }()

    /// The checksum of `bytes`, continuing from `crc` (pass the result of an
    /// earlier call to checksum data that arrives in pieces).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        if usesHardware { return chronicle_crc32c_hardware(crc, bytes.baseAddress, bytes.count) }
        return tableChecksum(bytes, continuing: crc)
    }

    /// ``checksum(_:continuing:)`` by the table method, whatever the
    /// processor (for tests on a machine with the instruction).
    static func tableChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var crc = ~crc
        guard let base = bytes.baseAddress else { return ~crc }
        let count = bytes.count
        var index = 0
        tables.withUnsafeBufferPointer { buffer in
            let t = buffer.baseAddress!
            while count - index >= 8 {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let x = UInt32(truncatingIfNeeded: word) ^ crc
                let hi = UInt32(truncatingIfNeeded: word >> 32)
                crc = t[7 * 256 + Int(x & 0xFF)] ^ t[6 * 256 + Int((x >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((x >> 16) & 0xFF)] ^ t[4 * 256 + Int(x >> 24)]
                    ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                    ^ t[256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                index += 8
            }
            while index < count {
                crc = t[Int((crc ^ UInt32(base.load(fromByteOffset: index, as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        return ~crc
    }

    /// The checksum of a byte array.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    // MARK: Combining

    /// `a * b` modulo the CRC polynomial, both in the reflected bit order of
    /// the register (bit 31 is x^0). From zlib's `multmodp`.
    static func multiplyModP(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var m: UInt32 = 1 << 31
        var b = b
        var product: UInt32 = 0
        while true {
            if a & m != 0 {
                product ^= b
                if a & (m &- 1) == 0 { break }
            }
            m >>= 1
            if m == 0 { break }
            b = b & 1 != 0 ? (b >> 1) ^ 0x82F6_3B78 : b >> 1
        }
        return product
    }

    /// `x^(2^k)` modulo the polynomial, for k in 0..<32.
    private static let powers: [UInt32] = {
        var table: [UInt32] = []
        var p: UInt32 = 1 << 30  // x^1
        for _ in 0..<32 {
            table.append(p)
            p = multiplyModP(p, p)
        }
        return table
    }()

    /// `x^(8 * count)` modulo the polynomial: the operator that shifts a
    /// register past `count` zero bytes.
    /// - Complexity: O(log count).
    static func shiftOperator(bytes count: Int) -> UInt32 {
        var result: UInt32 = 1 << 31  // x^0
        var n = UInt64(count)
        var k = 3
        while n != 0 {
            if n & 1 != 0 { result = multiplyModP(powers[k & 31], result) }
            n >>= 1
            k += 1
        }
        return result
    }

    /// The checksum of `A ++ B` from the checksums of `A` and `B` and the
    /// length of `B` (zlib's `crc32_combine`), without reading either.
    /// - Complexity: O(log lengthB).
    static func combine(_ crcA: UInt32, _ crcB: UInt32, lengthB: Int) -> UInt32 {
        multiplyModP(shiftOperator(bytes: lengthB), crcA) ^ crcB
    }
}
