import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import Testing

/// A deterministic fuzz loop over the server's request decoding: random
/// bytes and mutations of valid push bodies never crash it, and what it
/// accepts is well-formed. (`Fuzz/Targets/sync-push.swift` runs the same
/// decoding under libFuzzer.)
@Suite("Push body decoding fuzz", .serialized)
struct RequestFuzzTests {

    static func check(_ bytes: [UInt8]) throws {
        guard let push = try? SyncWire.decodeCheckedPush(bytes) else { return }
        #expect(try SyncWire.decodeCheckedPush(SyncWire.encode(push)) == push)
        for (offset, wire) in push.commits.enumerated() {
            #expect(try Commit(encoded: wire.payload).version == push.base + UInt64(offset) + 1)
        }
    }

    @Test func randomBytesAndMutatedBodiesNeverCrashTheDecoder() throws {
        var random = SeededRandom(state: 29)
        let valid = SyncWire.encode(.init(base: 0, commits: Commits.wire(1...4)))
        var accepted = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0..<64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                if round % 4 == 0, !bytes.isEmpty { bytes[0] = SyncWire.format }
            } else {
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                    case 1: bytes.removeLast(Int.random(in: 0..<min(bytes.count, 8), using: &random))
                    case 2: bytes.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
                    default: bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 0x80
                    }
                    if bytes.isEmpty { break }
                }
            }
            if (try? SyncWire.decodeCheckedPush(bytes)) != nil { accepted += 1 }
            try Self.check(bytes)
        }
        // The valid body itself decodes: the loop reached the inner decoders.
        #expect(try SyncWire.decodeCheckedPush(valid).commits.count == 4)
        #expect(accepted < 20_000)
    }

    @Test func hostileLengthsDoNotAllocate() {
        // A count of 2^63 commits, and a payload length of 2^62: refused from the bytes that remain.
        let hugeCount: [UInt8] = [1, 0] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        #expect(throws: SyncWireError.self) { try SyncWire.decodeCheckedPush(hugeCount) }
        var hugeLength: [UInt8] = [1, 0, 1] + [UInt8](repeating: 7, count: 16)
        hugeLength += [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40]
        #expect(throws: SyncWireError.self) { try SyncWire.decodeCheckedPush(hugeLength) }
        #expect(throws: SyncWireError.self) { try SyncWire.decodePull([1, 5, 1, 0xFF, 0xFF, 0xFF, 0x7F]) }
    }

    @Test func randomBodiesOverHTTPAre400() async throws {
        try await ServerTests.withServer { api in
        let scope = Harness.freshScope("fuzz")
        var random = SeededRandom(state: 4242)
        for _ in 0..<100 {
            let bytes = (0..<Int.random(in: 0..<200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let reply = try await api.request("POST", "/v1/scopes/\(scope)/commits", body: bytes)
            #expect(reply.status == 400)
        }
        #expect(try await api.pull(scope, after: 0).pull?.head == 0)
        #expect(try await api.request("GET", "/health").status == 200)
        }
    }
}
