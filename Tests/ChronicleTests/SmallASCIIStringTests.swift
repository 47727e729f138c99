import Foundation
import Testing
@testable import Chronicle

/// Issue 31: short ASCII strings decoded from a journal or a checkpoint are
/// laid out straight from their bytes (``SmallASCIIString``); they must be
/// the very strings the standard library makes.
@Suite("Short ASCII strings made from their bytes")
struct SmallASCIIStringTests {
    @Test func theStandardLibrarysLayoutIsTheOneAssumed() {
        #if _pointerBitWidth(_64)
        #expect(SmallASCIIString.isAvailable)
        #endif
    }

    @Test(arguments: 0...15)
    func everyLengthMakesTheStringTheStandardLibraryMakes(length: Int) throws {
        let text = String("The quick brown fox".prefix(length))
        let bytes = Array(text.utf8)
        let made = try #require(bytes.withUnsafeBufferPointer { SmallASCIIString.make($0) })
        let expected = String(decoding: bytes, as: UTF8.self)
        #expect(made == expected)
        #expect(made.utf8.count == length)
        #expect(Array(made.utf8) == bytes)
        #expect(made.hashValue == expected.hashValue)
        #expect(made + "!" == expected + "!")
        var grown = made
        grown += String(repeating: "x", count: 40)
        #expect(grown.count == length + 40)
        #expect(made.unicodeScalars.allSatisfy { $0.isASCII })
        // Through the reader, as the journal and checkpoints decode them.
        var writer = BinaryWriter()
        writer.string(text)
        let decoded = try writer.bytes.withUnsafeBytes { raw throws(BinaryReader.Malformed) -> String in
            var reader = BinaryReader(raw)
            return try reader.string()
        }
        #expect(decoded == text)
        // With bytes after it (ASCII or not: neither may leak in), the
        // reader loads the string's words instead of copying its bytes:
        // the same string, bit for bit.
        for filler: UInt8 in [0x5A, 0xFF] {
            var consumed = 0
            let followed = try (writer.bytes + [UInt8](repeating: filler, count: 20)).withUnsafeBytes { raw throws(BinaryReader.Malformed) -> String in
                var reader = BinaryReader(raw)
                let string = try reader.string()
                consumed = reader.offset
                return string
            }
            #expect(followed == text, "after \(filler)")
            #expect(consumed == 1 + length)
            #if _pointerBitWidth(_64)
            let followedWords = unsafeBitCast(followed, to: (UInt64, UInt64).self)
            let expectedWords = unsafeBitCast(expected, to: (UInt64, UInt64).self)
            #expect(followedWords.0 == expectedWords.0 && followedWords.1 == expectedWords.1)
            #endif
        }
    }

    /// The reader's short-string path reads the length in place: a string
    /// that ends exactly at the end of the input reads, one a byte short
    /// fails as the checked path fails, and short non-ASCII or invalid
    /// bytes go the checked way (decoded, or refused).
    @Test func theReadersShortPathKeepsTheCheckedPathsAnswers() throws {
        func read(_ bytes: [UInt8]) -> Result<[String], BinaryReader.Malformed> {
            bytes.withUnsafeBytes { raw in
                var reader = BinaryReader(raw)
                var strings: [String] = []
                do throws(BinaryReader.Malformed) {
                    while !reader.isAtEnd { strings.append(try reader.string()) }
                    return .success(strings)
                } catch {
                    return .failure(error)
                }
            }
        }
        #expect(try read([3] + Array("abc".utf8) + [0] + [2] + Array("de".utf8)).get() == ["abc", "", "de"])
        #expect(try read([15] + Array("fifteen letters".utf8)).get() == ["fifteen letters"])
        #expect(try read([5] + Array("café".utf8)).get() == ["café"])
        // One byte short: the checked path's error, at the length.
        guard case .failure(let short) = read([4] + Array("abc".utf8)) else {
            Issue.record("a string running past the end must fail")
            return
        }
        #expect(short.offset == 1 && short.reason.contains("runs past the end"))
        guard case .failure(let invalid) = read([2, 0x61, 0xFF]) else {
            Issue.record("invalid UTF-8 must fail")
            return
        }
        #expect(invalid.reason.contains("not valid UTF-8"))
    }

    @Test func longOrNonASCIIBytesAreLeftToTheOrdinaryWay() {
        for text in ["sixteen letters!", "café", "\u{7F}\u{80}", String(repeating: "a", count: 100)] {
            let bytes = Array(text.utf8)
            let made = bytes.withUnsafeBufferPointer { SmallASCIIString.make($0) }
            #expect(made == nil, "\(text)")
        }
        // A 0x80 byte is not ASCII: invalid UTF-8 alone still fails the reader.
        let invalid: [UInt8] = [0x61, 0x80]
        #expect(invalid.withUnsafeBufferPointer { SmallASCIIString.make($0) } == nil)
        #expect(invalid.withUnsafeBufferPointer { BinaryReader.validUTF8($0) } == nil)
    }
}
