#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A whole file's bytes, read only: mapped into memory, so opening costs
/// the same for any size and only the pages read are ever loaded; or, for
/// bytes already in memory (tests, a file that cannot be mapped), a copy.
///
/// The bytes never change while this object lives. Chronicle replaces the
/// files it maps (checkpoint files) by renaming a new file over the old
/// one, never by writing in place, so a mapping keeps the old file's
/// contents until it is unmapped.
///
/// `@unchecked Sendable`: `bytes` is immutable memory (a read-only mapping
/// or an allocation written once in `init`), released only in `deinit`.
final class MappedFile: @unchecked Sendable {
    /// The file's bytes, valid for the life of this object.
    let bytes: UnsafeRawBufferPointer
    /// The memory to free, for a copy; `nil` for a mapping.
    private let allocation: UnsafeMutableRawPointer?

    /// Maps `url`, or reads it into memory where it cannot be mapped (an
    /// empty file, a file system without mappings).
    /// - Throws: ``JournalError/io(operation:errno:path:)`` if it cannot be opened or read.
    convenience init(contentsOf url: URL) throws(JournalError) {
        try self.init(path: url.path)
    }

    /// ``init(contentsOf:)`` by path.
    init(path: String) throws(JournalError) {
        let file = try JournalFile.openForReading(path: path)
        let size = try file.size()
        if size > 0, let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, file.fd, 0), address != MAP_FAILED {
            bytes = UnsafeRawBufferPointer(start: address, count: size)
            allocation = nil
            return
        }
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 16)
        do throws(JournalError) {
            let read = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: copy[..<size]), at: 0)
            bytes = UnsafeRawBufferPointer(rebasing: copy[..<read])
        } catch {
            copy.deallocate()
            throw error
        }
        allocation = copy.baseAddress
    }

    /// A copy of `contents`, for bytes that are not in a file.
    init(copying contents: [UInt8]) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(contents.count, 1), alignment: 16)
        contents.withUnsafeBytes { copy.copyMemory(from: $0) }
        bytes = UnsafeRawBufferPointer(rebasing: copy[..<contents.count])
        allocation = copy.baseAddress
    }

    deinit {
        if let allocation {
            allocation.deallocate()
        } else {
            munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
        }
    }
}
