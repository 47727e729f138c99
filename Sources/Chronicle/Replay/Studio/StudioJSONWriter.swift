import Foundation

/// Writes the JSON that a Studio page embeds in `<script type="application/json">`
/// blocks, as UTF-8 bytes handed to a sink in large pieces.
///
/// Every string is escaped so that the JSON can sit inside an HTML script
/// element: besides what JSON requires, `<`, `>`, `&`, U+2028 and U+2029 are
/// written as `\uXXXX`. JSON outside strings holds none of those characters,
/// so no journal content can close the element (`</script>`) or start a
/// comment in it, whatever it holds.
struct StudioJSONWriter {
    /// Strings longer than this many UTF-16 units are embedded as their start,
    /// their length and a checksum of the whole (see ``value(_:)``).
    static let longStringLimit = 4096
    /// Bytes of a `Data` value embedded as hexadecimal.
    static let dataPrefix = 16

    private(set) var bytes: [UInt8] = []
    private let flushThreshold: Int
    private let sink: ([UInt8]) -> Void

    /// A writer that hands `sink` its bytes whenever `flushThreshold` are buffered.
    init(flushThreshold: Int = 1 << 20, sink: @escaping ([UInt8]) -> Void) {
        self.flushThreshold = flushThreshold
        self.sink = sink
        if flushThreshold < 1 << 30 { bytes.reserveCapacity(flushThreshold + 4096) }
    }

    /// A writer that keeps its bytes until they are taken (``bytes``).
    static func buffer() -> StudioJSONWriter { StudioJSONWriter(flushThreshold: .max) { _ in } }

    /// Another writer's bytes, written as they are: JSON this file wrote.
    mutating func append(_ other: StudioJSONWriter) {
        bytes.append(contentsOf: other.bytes)
        if bytes.count >= flushThreshold { flush() }
    }

    /// Hands the buffered bytes to the sink.
    mutating func flush() {
        guard !bytes.isEmpty else { return }
        sink(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Text that is known to be safe where it goes (markup and JSON syntax of the page's own).
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        if bytes.count >= flushThreshold { flush() }
    }

    /// Text of the page's own making (numbers, template pieces); never journal content.
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= flushThreshold { flush() }
    }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func int<I: BinaryInteger>(_ value: I) {
        if value == 0 { bytes.append(UInt8(ascii: "0")); return }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        while magnitude > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        bytes[start...].reverse()
    }

    /// `[e1,e2,…]`, each element written by `element`.
    mutating func array<S: Sequence>(_ elements: S, _ element: (inout StudioJSONWriter, S.Element) -> Void) {
        byte(UInt8(ascii: "["))
        var first = true
        for value in elements {
            if !first { byte(UInt8(ascii: ",")) }
            first = false
            element(&self, value)
        }
        byte(UInt8(ascii: "]"))
    }

    /// A JSON string literal, escaped for JSON and for an HTML script element.
    /// - Complexity: O(length of `text`).
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x3C, 0x3E, 0x26, 0x2028, 0x2029: unicodeEscape(scalar.value)
            case 0x20..<0x80: bytes.append(UInt8(scalar.value))
            default: bytes.append(contentsOf: String(Character(scalar)).utf8)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        if bytes.count >= flushThreshold { flush() }
    }

    private mutating func unicodeEscape(_ value: UInt32) {
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), hex[Int(value >> 12) & 15], hex[Int(value >> 8) & 15],
                                  hex[Int(value >> 4) & 15], hex[Int(value) & 15]])
    }

    /// A number that JSON can hold; non-finite values as the strings
    /// `"NaN"`, `"Infinity"` and `"-Infinity"`.
    mutating func double(_ value: Double) {
        if value.isNaN { raw("\"NaN\"") } else if value.isInfinite { raw(value < 0 ? "\"-Infinity\"" : "\"Infinity\"") }
        else if value == value.rounded(), abs(value) < 1e15 { int(Int64(value)) } else { raw("\(value)") }
    }

    /// A persisted value in the page's encoding, which the page reads with the
    /// property's schema: `null`; booleans; integers as numbers (as strings
    /// beyond ±2^53, which a JavaScript number cannot hold exactly); `Float`
    /// and `Double` as numbers; strings as strings, or `{"s": start, "n":
    /// length, "h": checksum}` when longer than ``longStringLimit``; `Data` as
    /// `{"d": count, "x": hex of the first bytes, "h": checksum}`; dates as
    /// seconds since 1970; UUIDs, ObjectIds and decimals as strings; links as
    /// object keys; lists and sets as arrays; maps as arrays of `[key, value]`.
    /// - Complexity: O(size of the value), long strings and data bounded.
    mutating func value(_ value: PersistedValue) {
        switch value {
        case .null: raw("null")
        case .bool(let v): raw(v ? "true" : "false")
        case .int(let v):
            if v.magnitude <= 1 << 53 { int(v) } else { byte(UInt8(ascii: "\"")); int(v); byte(UInt8(ascii: "\"")) }
        case .float(let v):
            if v.isFinite { raw("\(v)") } else { double(Double(v)) }
        case .double(let v): double(v)
        case .string(let v): longString(v)
        case .data(let v):
            raw("{\"d\":")
            int(v.count)
            raw(",\"x\":\"")
            raw(v.prefix(Self.dataPrefix).map { String(format: "%02x", $0) }.joined())
            raw("\",\"h\":")
            int(CRC32C.checksum([UInt8](v)))
            byte(UInt8(ascii: "}"))
        case .date(let v): double(v.timeIntervalSince1970)
        case .uuid(let v): string(v.uuidString)
        case .objectId(let v): string(v.description)
        case .decimal(let v): string(v.description)
        case .link(let key): int(key.rawValue)
        case .list(let elements), .set(let elements):
            array(elements) { $0.value($1) }
        case .map(let entries):
            array(entries) { out, entry in
                out.byte(UInt8(ascii: "["))
                out.string(entry.key)
                out.byte(UInt8(ascii: ","))
                out.value(entry.value)
                out.byte(UInt8(ascii: "]"))
            }
        }
    }

    /// A string value, bounded: a journal of huge strings still makes a page
    /// that opens, and two long strings that differ anywhere still differ in
    /// the page (the checksum covers the whole string).
    private mutating func longString(_ text: String) {
        let units = text.utf16
        guard units.count > Self.longStringLimit else { return string(text) }
        let end = units.index(units.startIndex, offsetBy: Self.longStringLimit)
        raw("{\"s\":")
        string(String(decoding: Array(units[..<end]), as: UTF16.self))
        raw(",\"n\":")
        int(units.count)
        raw(",\"h\":")
        int(CRC32C.checksum(Array(text.utf8)))
        byte(UInt8(ascii: "}"))
    }
}
