import Chronicle
import Foundation

/// Journal size before and after `store.compact()`.
enum CompactionBenchmark {
    static let workload = Workload(
        id: "compaction", summary: "journal size and open time before and after compact() and compact(keepingLast: 1000)",
        sides: [.chronicle], prepare: nil
    ) { _, options in
        []
    }
}
