import Testing
@testable import Chronicle

/// `BinaryReader.varint()` at every length, near the end of the input and
/// far from it: a varint of two bytes or more is read unchecked while ten
/// bytes remain, checked a byte at a time near the end, and the two
/// readings must agree.
@Suite("BinaryReader: varints")
struct BinaryReaderVarintTests {
    static func read(_ bytes: [UInt8]) -> Result<(UInt64, Int), BinaryReader.Malformed> {
        bytes.withUnsafeBytes { raw in
            var r = BinaryReader(raw)
            do throws(BinaryReader.Malformed) {
                let value = try r.varint()
                return .success((value, r.offset))
            } catch {
                return .failure(error)
            }
        }
    }

    // Every length's first and last value up to five bytes (two to four
    // are read from one load), then longer ones.
    static let values: [UInt64] = [0, 1, 127, 128, 300, 16_383, 16_384, 1_000_000, 2_097_151, 2_097_152,
                                   0x0AAA_5555, 268_435_455, 268_435_456, 1 << 35, (1 << 49) - 1, 1 << 49,
                                   0x00AA_5555_AAAA_5555, (1 << 56) - 1, 1 << 56, (1 << 63) - 1, 1 << 63, .max]

    @Test(arguments: values)
    func aVarintReadsTheSameWithAndWithoutBytesAfterIt(value: UInt64) throws {
        var w = BinaryWriter()
        w.varint(value)
        let encoded = w.bytes
        for padding in [0, 1, 7, 8, 9, 10, 16] {
            let (read, offset) = try Self.read(encoded + [UInt8](repeating: 0xFF, count: padding)).get()
            #expect(read == value, "padding \(padding)")
            #expect(offset == encoded.count, "padding \(padding)")
        }
    }

    static func readSigned(_ bytes: [UInt8], inline: Bool) -> Result<(Int64, Int), BinaryReader.Malformed> {
        bytes.withUnsafeBytes { raw in
            var r = BinaryReader(raw)
            do throws(BinaryReader.Malformed) {
                let value = inline ? try r.signedInline() : try r.signed()
                return .success((value, r.offset))
            } catch {
                return .failure(error)
            }
        }
    }

    /// `signedInline()`, which decodes up to three bytes itself, reads
    /// every signed value as `signed()` does, wherever it ends.
    @Test(arguments: values)
    func aSignedVarintReadsTheSameInlineAndCalled(value: UInt64) throws {
        for signed in [Int64(bitPattern: value), -Int64(bitPattern: value >> 1), Int64(bitPattern: value >> 1)] {
            var w = BinaryWriter()
            w.signed(signed)
            let encoded = w.bytes
            for padding in [0, 1, 7, 8, 9, 10, 16] {
                let bytes = encoded + [UInt8](repeating: 0xFF, count: padding)
                let (inline, inlineEnd) = try Self.readSigned(bytes, inline: true).get()
                let (called, calledEnd) = try Self.readSigned(bytes, inline: false).get()
                #expect(inline == signed && called == signed, "\(signed), padding \(padding)")
                #expect(inlineEnd == encoded.count && calledEnd == encoded.count, "\(signed), padding \(padding)")
            }
        }
    }

    @Test func overlongAndOverflowingVarintsFailWhereverTheyAre() {
        let overflowing = [UInt8](repeating: 0xFF, count: 9) + [0x02]
        let overlong = [UInt8](repeating: 0x80, count: 10) + [0x00]
        for bytes in [overflowing, overlong] {
            for padding in [0, 12] {
                guard case .failure = Self.read(bytes + [UInt8](repeating: 0, count: padding)) else {
                    Issue.record("\(bytes) + \(padding) bytes read as a varint")
                    continue
                }
            }
        }
        for bytes in [[UInt8](repeating: 0xFF, count: 9) + [0x02] + [UInt8](repeating: 0, count: 12), [0x80, 0x80]] {
            guard case .failure = Self.readSigned(bytes, inline: true) else {
                Issue.record("\(bytes) read as a signed varint inline")
                continue
            }
        }
        guard case .failure = Self.read([0x80, 0x80]) else {
            Issue.record("a truncated varint was read")
            return
        }
    }
}
