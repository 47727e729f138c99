import Chronicle
import Foundation

// One type per value kind, each with a single persisted property.
final class KindInt: Object { @Persisted var v = 0 }
final class KindBool: Object { @Persisted var v = false }
final class KindDouble: Object { @Persisted var v = 0.0 }
final class KindDate: Object { @Persisted var v = Date(timeIntervalSinceReferenceDate: 0) }
final class KindShortString: Object { @Persisted var v = "" }
final class KindLongString: Object { @Persisted var v = "" }
final class KindData: Object { @Persisted var v = Data() }
final class KindUUID: Object { @Persisted var v = UUID() }
final class KindObjectId: Object { @Persisted var v = ObjectId() }
final class KindDecimal: Object { @Persisted var v = Decimal(0) }
final class KindOptionalNil: Object { @Persisted var v: Int? }
final class KindList: Object { @Persisted var v = List<Int>() }
final class KindIndexedString: Object { @Persisted(indexed: true) var v = "" }
final class KindPrimaryKey: Object { @Persisted(primaryKey: true) var v = 0 }
final class KindObjectIdPrimaryKey: Object { @Persisted(primaryKey: true) var v = ObjectId() }
final class KindStringPrimaryKey: Object { @Persisted(primaryKey: true) var v = "" }

// Safe as every model class is: the store serialises writes and a handle is
// read on the thread that holds it (see DefiningModels.md).
extension KindInt: @unchecked Sendable {}
extension KindBool: @unchecked Sendable {}
extension KindDouble: @unchecked Sendable {}
extension KindDate: @unchecked Sendable {}
extension KindShortString: @unchecked Sendable {}
extension KindLongString: @unchecked Sendable {}
extension KindData: @unchecked Sendable {}
extension KindUUID: @unchecked Sendable {}
extension KindObjectId: @unchecked Sendable {}
extension KindDecimal: @unchecked Sendable {}
extension KindOptionalNil: @unchecked Sendable {}
extension KindList: @unchecked Sendable {}
extension KindIndexedString: @unchecked Sendable {}
extension KindPrimaryKey: @unchecked Sendable {}
extension KindObjectIdPrimaryKey: @unchecked Sendable {}
extension KindStringPrimaryKey: @unchecked Sendable {}

/// `memory` (only when named): resident memory per object for each value
/// kind. For each kind, one child process writes a journal of N objects of
/// a type with a single property of that kind (in commits of 10k), and a
/// fresh child opens it without a checkpoint file (the fold) and reports
/// how much its resident memory (`VmRSS`) grew: the bytes an object of
/// that kind costs folded, everything included (record, tries, indexes,
/// out-of-line values, allocator overhead, in-memory checkpoints).
enum MemoryProbe {
    struct Kind: Sendable {
        var name: String
        var type: Object.Type
        var add: @Sendable (Store, Int) -> Void
    }

    static let kinds: [Kind] = [
        Kind(name: "Int", type: KindInt.self) { store, i in store.add(with(KindInt()) { $0.v = i &* 7919 }) },
        Kind(name: "Int primary key", type: KindPrimaryKey.self) { store, i in store.add(with(KindPrimaryKey()) { $0.v = i }) },
        Kind(name: "Bool", type: KindBool.self) { store, i in store.add(with(KindBool()) { $0.v = i % 3 == 0 }) },
        Kind(name: "Double", type: KindDouble.self) { store, i in store.add(with(KindDouble()) { $0.v = Double(i) * 0.37 }) },
        Kind(name: "Date", type: KindDate.self) { store, i in
            store.add(with(KindDate()) { $0.v = Date(timeIntervalSinceReferenceDate: Double(i)) })
        },
        Kind(name: "String, 8 letters", type: KindShortString.self) { store, i in
            store.add(with(KindShortString()) { $0.v = letters(i, 8) })
        },
        Kind(name: "String, 40 letters", type: KindLongString.self) { store, i in
            store.add(with(KindLongString()) { $0.v = letters(i, 40) })
        },
        Kind(name: "String, 8 letters, indexed", type: KindIndexedString.self) { store, i in
            store.add(with(KindIndexedString()) { $0.v = letters(i, 8) })
        },
        Kind(name: "Data, 16 bytes", type: KindData.self) { store, i in
            store.add(with(KindData()) { $0.v = Data(letters(i, 16).utf8) })
        },
        Kind(name: "UUID", type: KindUUID.self) { store, _ in store.add(with(KindUUID()) { $0.v = UUID() }) },
        Kind(name: "ObjectId", type: KindObjectId.self) { store, _ in store.add(with(KindObjectId()) { $0.v = ObjectId.generate() }) },
        Kind(name: "Decimal", type: KindDecimal.self) { store, i in store.add(with(KindDecimal()) { $0.v = Decimal(i) / 100 }) },
        Kind(name: "ObjectId primary key", type: KindObjectIdPrimaryKey.self) { store, _ in
            store.add(with(KindObjectIdPrimaryKey()) { $0.v = ObjectId.generate() })
        },
        Kind(name: "String primary key, 8 letters", type: KindStringPrimaryKey.self) { store, i in
            store.add(with(KindStringPrimaryKey()) { $0.v = letters(i, 8) })
        },
        Kind(name: "Int? (nil)", type: KindOptionalNil.self) { store, _ in store.add(KindOptionalNil()) },
        Kind(name: "List<Int>, 4 elements", type: KindList.self) { store, i in
            store.add(with(KindList()) { $0.v.append(contentsOf: [i, i + 1, i + 2, i + 3]) })
        },
    ]

    static func with<T: Object>(_ object: T, _ body: (T) -> Void) -> T {
        body(object)
        return object
    }

    /// `count` letters derived from `i` (distinct for distinct `i`).
    static func letters(_ i: Int, _ count: Int) -> String {
        var random = SplitMix64(seed: UInt64(i))
        return String((0..<count).map { _ in Character(Unicode.Scalar(UInt8(97 + random.next() % 26))) })
    }

    static func journal(_ directory: URL, _ kind: Int) -> URL {
        directory.appendingPathComponent("memory-\(kind).journal")
    }

    static func open(_ url: URL, _ kind: Kind) throws -> Store {
        var configuration = Store.Configuration(fileURL: url, durability: .none, objectTypes: [kind.type])
        configuration.checkpoints.usesFile = false
        if ProcessInfo.processInfo.environment["MEMORY_PROBE_NO_CHECKPOINTS"] != nil {
            // In-memory checkpoints at most every `Int.max` events: none.
            configuration.checkpoints.interval = .max
        }
        return try Store(configuration: configuration)
    }

    static func run(count: Int, directory: URL) throws {
        print("objects of a type with one property of each kind, \(count) objects, folded in a fresh process")
        print("kind".padding(toLength: 30, withPad: " ", startingAt: 0) + "resident growth   an object")
        for index in kinds.indices {
            _ = try Harness.child(["--memory-child", "seed", String(index), String(count), directory.path])
            let opened = try Harness.child(["--memory-child", "open", String(index), String(count), directory.path])
            let growth = (opened.figures.first?.median ?? 0) * 1024
            print(kinds[index].name.padding(toLength: 30, withPad: " ", startingAt: 0)
                  + Harness.format(growth, .bytes).padding(toLength: 18, withPad: " ", startingAt: 0)
                  + String(format: "%.0f B", growth / Double(count)))
            fflush(nil)
            try? FileManager.default.removeItem(at: journal(directory, index))
        }
    }

    /// `--memory-child seed|open KIND COUNT DIR`.
    static func runChild(_ arguments: [String]) throws -> Never {
        guard arguments.count == 4, let index = Int(arguments[1]), let count = Int(arguments[2]) else {
            fatalError("usage: --memory-child seed|open KIND COUNT DIR")
        }
        let kind = kinds[index]
        let url = journal(URL(fileURLWithPath: arguments[3]), index)
        if arguments[0] == "seed" {
            try? FileManager.default.removeItem(at: url)
            let store = try open(url, kind)
            var start = 0
            while start < count {
                try store.write { for i in start..<min(start + 10_000, count) { kind.add(store, i) } }
                start += 10_000
            }
        } else {
            let before = ProcessInfoReader.statusKB("VmRSS")
            let store = try open(url, kind)
            let after = ProcessInfoReader.statusKB("VmRSS")
            withExtendedLifetime(store) {}
            print(Figure.count("growth kB", after - before).line)
        }
        print("RSS\t\(ProcessInfoReader.statusKB("VmHWM"))")
        exit(0)
    }
}
