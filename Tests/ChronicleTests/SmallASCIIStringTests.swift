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
