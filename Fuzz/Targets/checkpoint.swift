// Fuzz target: a checkpoint file decoded against its journal, as opening a
// store with a checkpoint file does (`CheckpointFile.decode`), both wholly
// and lazily (`CheckpointTable`).
//
// Input: the journal's length (UInt32, little-endian), the journal's bytes,
// then the checkpoint file's bytes. Every checksum of the checkpoint is
// recomputed first (`CheckpointLayout.resealed`), so that mutations reach
// the decoder instead of stopping at a checksum mismatch: the decoder must
// withstand hostile contents with valid checksums.
//
// Checks: decoding returns a state or a typed rejection, never crashes; a
// state it returns satisfies the fold's invariants. Read lazily, every
// object read by key and by primary key is the one the wholly decoded state
// (or, when the file is rejected there, the journal's fold) holds, and
// every value an iteration's encoded blocks return is the decoded state's.
@_cdecl("LLVMFuzzerTestOneInput")
public func checkpointFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    guard bytes.count >= 4 else { return 0 }
    let length = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
    guard length <= bytes.count - 4, let journal = try? Journal(bytes: Array(bytes[4..<(4 + length)])) else { return 0 }
    let checkpoint = CheckpointLayout.resealed(Array(bytes[(4 + length)...]))
    let whole = CheckpointFile.decode(checkpoint, journal: journal)
    if case .success(let state) = whole {
        let problems = state._invariantViolations()
        guard problems.isEmpty else { fuzzViolation("a decoded checkpoint broke state invariants: \(problems)") }
    }
    // Lazily: reads fall back on the journal's fold, which must succeed for them to have an answer.
    guard case .success(let lazy) = CheckpointFile.decode(MappedFile(copying: checkpoint), journal: journal, deferringFrom: 1),
          let folded = try? Store.fold(journal) else { return 0 }
    var truth = folded
    if case .success(let state) = whole { truth = state }
    guard lazy.version <= folded.version else { fuzzViolation("a checkpoint beyond its journal was accepted") }
    for table in lazy.schema.indices {
        for key in 0..<min(lazy.nextKey(table: table).rawValue, 300) {
            let read = lazy.object(table: table, key: ObjectKey(key))
            if case .success = whole, read != truth.object(table: table, key: ObjectKey(key)) {
                fuzzViolation("a lazily read object differs from the decoded one")
            }
            if case .success = whole, let read, let primaryKey = lazy.schema[table].primaryKeyIndex,
               lazy.key(table: table, primaryKey: read.values[primaryKey]) == nil {
                fuzzViolation("an object read lazily is not found by its primary key")
            }
        }
    }
    // Iterated as `for object in store.objects(T.self)` does: every value an
    // encoded block returns is the decoded state's.
    if case .success = whole {
        for table in lazy.schema.indices {
            guard let deferred = lazy.tables[table].deferred else { continue }
            var scan = EncodedScan(deferred)
            var steps = 0
            while steps < 300, case .object(let key, let unretained, let place) = scan.next() {
                steps += 1
                guard let record = truth.object(table: table, key: key) else { fuzzViolation("an encoded scan yielded an object the state lacks") }
                // The scan keeps the block until its next step.
                let block = unretained.takeUnretainedValue()
                // As a handle reads: at the place the scan gave, property
                // after property with one cursor.
                var cursor = CheckpointTable.EncodedCursor.start
                for property in record.values.indices {
                    if let value = block.value(forKey: key.rawValue, property: property), value != record.values[property] {
                        fuzzViolation("an encoded block's value differs from the decoded one")
                    }
                    if let value = block.read(at: place, property: property, cursor: &cursor).value, value != record.values[property] {
                        fuzzViolation("a value read at the scan's place differs from the decoded one")
                    }
                }
            }
        }
    }
    let problems = lazy._invariantViolations()
    guard problems.isEmpty else { fuzzViolation("a lazily decoded checkpoint broke state invariants: \(problems)") }
    return 0
}
