import Chronicle
import Foundation

/// Renders values for messages and descriptions so that two different
/// values never print the same: a test that compares descriptions must not
/// pass when the values differ, and a failure must show what differs.
///
/// - Strings are Swift literals: quoted, with quotes, backslashes and
///   control characters escaped (`"a\", \"b"`).
/// - Dates show the time to the millisecond and the exact seconds since
///   2001-01-01, as stored (`2025-01-01T00:00:00.250Z (757382400.25 s since 2001)`).
/// - Data shows its length and bytes in hex, whole up to 32 bytes; longer
///   data shows the first 16 and a 64-bit FNV-1a digest of all of them.
/// - Numbers print their shortest exact form (`0.1`, `-0.0`).
enum ValueText {
    /// Up to this many bytes, data prints whole.
    static let wholeDataLimit = 32

    /// A stored value; links render as `Type#key` with `objectType`.
    static func persisted(_ value: PersistedValue, objectType: String? = nil) -> String {
        switch value {
        case .string(let string): return self.string(string)
        case .date(let date): return self.date(date)
        case .data(let data): return self.data(data)
        case .link(let key): return "\(objectType ?? "")\(key)"
        case .list(let elements): return "[" + elements.map { persisted($0, objectType: objectType) }.joined(separator: ", ") + "]"
        case .set(let elements): return "{" + elements.map { persisted($0, objectType: objectType) }.joined(separator: ", ") + "}"
        case .map(let entries):
            guard !entries.isEmpty else { return "[:]" }
            return "[" + entries.map { "\(string($0.key)): \(persisted($0.value, objectType: objectType))" }
                .joined(separator: ", ") + "]"
        default: return value.description
        }
    }

    /// A Swift value as the journal would hold it: optionals unwrapped,
    /// managed objects as `Type#key`, enums as their raw value.
    static func swift(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            return mirror.children.first.map { swift($0.value) } ?? "nil"
        }
        switch value {
        case let string as String: return self.string(string)
        case let date as Date: return self.date(date)
        case let data as Data: return self.data(data)
        case let object as ObjectBase:
            return object.packageAddress.map { "\(Swift.type(of: object))\($0.key)" } ?? "unmanaged \(Swift.type(of: object))"
        case let primitive as any _PrimitivePersistable: return persisted(primitive._primitive)
        case let enumeration as any RawRepresentable: return swift(enumeration.rawValue)
        case let sequence as any Sequence:
            return "[" + sequence.map { swift($0) }.joined(separator: ", ") + "]"
        default: return String(describing: value)
        }
    }

    /// `"a\", \"b"`: the string as a Swift literal.
    static func string(_ string: String) -> String { string.debugDescription }

    /// `2025-01-01T00:00:00.250Z (757382400.25 s since 2001)`.
    static func date(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite else { return "Date(\(seconds) s since 2001)" }
        return "\(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))) (\(seconds) s since 2001)"
    }

    /// `Data(3 bytes: 0a0b0c)`, or for long data
    /// `Data(100 bytes: 000102…0f…, FNV-1a 8c0ec8d1fb9e6e32)`.
    static func data(_ data: Data) -> String {
        let noun = data.count == 1 ? "byte" : "bytes"
        guard data.count > wholeDataLimit else { return "Data(\(data.count) \(noun): \(hex(data)))" }
        return "Data(\(data.count) \(noun): \(hex(data.prefix(16)))…, FNV-1a \(hex(fnv1a(data))))"
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The 64-bit FNV-1a hash of `data`: a short digest that changes with
    /// any byte (no cryptographic strength needed; the length and prefix
    /// are printed too).
    static func fnv1a(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
