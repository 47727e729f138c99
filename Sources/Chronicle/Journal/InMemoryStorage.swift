import Foundation

/// Journal bytes kept in memory, for ``Journal/inMemory(durability:)``.
///
/// It holds the same header and records as a file, so the in-memory journal
/// exercises exactly the file journal's framing; syncing does nothing.
final class InMemoryStorage: JournalStorage {
    private let bytes: Locked<[UInt8]>

    init() {
        bytes = Locked(JournalFormat.makeHeader())
    }

    /// Storage holding exactly `bytes` (which need not be a valid journal):
    /// the seam that lets tests and fuzz targets open journal bytes without a file.
    init(bytes: [UInt8]) {
        self.bytes = Locked(bytes)
    }

    var path: String { "<in-memory journal>" }

    func size() -> Int { bytes.withLock { $0.count } }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        bytes.withLock { bytes in
            guard offset < bytes.count, !buffer.isEmpty else { return 0 }
            let count = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
            }
            return count
        }
    }

    func write(_ data: UnsafeRawBufferPointer, at offset: Int) {
        bytes.withLock { bytes in
            if bytes.count < offset { bytes.append(contentsOf: repeatElement(0, count: offset - bytes.count)) }
            let overlap = min(data.count, bytes.count - offset)
            bytes.replaceSubrange(offset..<offset + overlap, with: data)
        }
    }

    func sync() {}

    func truncate(to size: Int) {
        bytes.withLock { if $0.count > size { $0.removeLast($0.count - size) } }
    }

    func unlock() {}
}
