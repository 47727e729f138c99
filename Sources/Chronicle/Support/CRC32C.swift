/// CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`), the checksum that
/// frames every journal record.
///
/// Written by hand because the library takes no dependencies. It uses the
/// slicing-by-8 table method: eight table look-ups per eight input bytes.
///
/// - Complexity: O(*n*) in the number of bytes.
enum CRC32C {
    /// Eight 256-entry tables; table 0 is the classic byte-at-a-time table.
    private static let tables: [[UInt32]] = {
        var tables = Array(repeating: Array(repeating: UInt32(0), count: 256), count: 8)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
            }
            tables[0][byte] = crc
        }
        for byte in 0..<256 {
            var crc = tables[0][byte]
            for slice in 1..<8 {
                crc = tables[0][Int(crc & 0xFF)] ^ (crc >> 8)
                tables[slice][byte] = crc
            }
        }
        return tables
    }()

    /// The checksum of `bytes`, continuing from `crc` (pass the result of an
    /// earlier call to checksum data that arrives in pieces).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var crc = ~crc
        var index = 0
        let count = bytes.count
        tables.withUnsafeBufferPointer { t in
            let t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3]
            let t4 = t[4], t5 = t[5], t6 = t[6], t7 = t[7]
            while count - index >= 8 {
                let lo = UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
                    | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
                let hi = UInt32(bytes[index + 4]) | UInt32(bytes[index + 5]) << 8
                    | UInt32(bytes[index + 6]) << 16 | UInt32(bytes[index + 7]) << 24
                let x = lo ^ crc
                crc = t7[Int(x & 0xFF)] ^ t6[Int((x >> 8) & 0xFF)]
                    ^ t5[Int((x >> 16) & 0xFF)] ^ t4[Int(x >> 24)]
                    ^ t3[Int(hi & 0xFF)] ^ t2[Int((hi >> 8) & 0xFF)]
                    ^ t1[Int((hi >> 16) & 0xFF)] ^ t0[Int(hi >> 24)]
                index += 8
            }
            while index < count {
                crc = t0[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        return ~crc
    }

    /// The checksum of a byte array.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
