import Dispatch
import Foundation

/// Checks the checksums of a table's blocks on a second thread while the
/// calling thread decodes them: decoding withstands any bytes (it must, for
/// files with valid checksums and hostile contents), and a table whose
/// blocks fail is rejected as damaged whatever decoding made of it. Less
/// than a megabyte of blocks is checked in line: a thread costs more.
///
/// On a thread of its own, not a Dispatch global queue: the caller may
/// itself be on one (or on Swift's cooperative pool), and waiting there for
/// work queued behind it could stall on a small machine.
struct BlockVerification {
    private let done = DispatchGroup()
    private let intact = Locked(true)

    /// Starts checking `blocks` of `file`.
    init(_ blocks: [CheckpointLayout.Block], of file: MappedFile) {
        let size = blocks.reduce(0) { $0 + $1.length }
        let intact = self.intact
        guard size >= 1 << 20 else {
            intact.withLock { $0 = Self.check(blocks, file) }
            return
        }
        let done = self.done
        done.enter()
        Thread {
            let result = Self.check(blocks, file)
            intact.withLock { $0 = result }
            done.leave()
        }.start()
    }

    /// Whether every block's checksum holds; waits for the check to end.
    func wait() -> Bool {
        done.wait()
        return intact.withLock { $0 }
    }

    private static func check(_ blocks: [CheckpointLayout.Block], _ file: MappedFile) -> Bool {
        blocks.allSatisfy { CheckpointLayout.checkedBytes(of: $0, in: file.bytes) != nil }
    }
}
