/// A parsed JSON value for the JSON Lines format: numbers keep their text
/// (so integers and doubles convert exactly) and objects keep their key
/// order.
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    /// Where and why a text is not JSON.
    struct SyntaxError: Error {
        let offset: Int
        let reason: String
    }

    static let maximumDepth = 32

    // MARK: Writing

    /// The value as compact JSON text.
    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    // MARK: Parsing

    /// Parses one JSON text (surrounding whitespace allowed).
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.offset == bytes.count else { throw parser.fail("unexpected text after the value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var offset = 0

        func fail(_ reason: String) -> SyntaxError { SyntaxError(offset: offset, reason: reason) }

        var peek: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipWhitespace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
        }

        mutating func expect(_ literal: String) throws(SyntaxError) {
            for byte in literal.utf8 {
                guard peek == byte else { throw fail("expected \(literal)") }
                offset += 1
            }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth <= JSONValue.maximumDepth else { throw fail("nested deeper than \(JSONValue.maximumDepth)") }
            guard let byte = peek else { throw fail("unexpected end of line") }
            switch byte {
            case UInt8(ascii: "n"): try expect("null"); return .null
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            case UInt8(ascii: "["):
                offset += 1
                var elements: [JSONValue] = []
                skipWhitespace()
                if peek == UInt8(ascii: "]") { offset += 1; return .array(elements) }
                while true {
                    skipWhitespace()
                    elements.append(try value(depth: depth + 1))
                    skipWhitespace()
                    if peek == UInt8(ascii: ",") { offset += 1; continue }
                    if peek == UInt8(ascii: "]") { offset += 1; return .array(elements) }
                    throw fail("expected , or ] in an array")
                }
            case UInt8(ascii: "{"):
                offset += 1
                var members: [(key: String, value: JSONValue)] = []
                skipWhitespace()
                if peek == UInt8(ascii: "}") { offset += 1; return .object(members) }
                while true {
                    skipWhitespace()
                    guard peek == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                    let key = try string()
                    skipWhitespace()
                    try expect(":")
                    skipWhitespace()
                    members.append((key, try value(depth: depth + 1)))
                    skipWhitespace()
                    if peek == UInt8(ascii: ",") { offset += 1; continue }
                    if peek == UInt8(ascii: "}") { offset += 1; return .object(members) }
                    throw fail("expected , or } in an object")
                }
            default:
                throw fail("unexpected character")
            }
        }

        mutating func number() throws(SyntaxError) -> String {
            let start = offset
            if peek == UInt8(ascii: "-") { offset += 1 }
            func digits(_ parser: inout Parser) -> Int {
                var count = 0
                while let byte = parser.peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { parser.offset += 1; count += 1 }
                return count
            }
            if peek == UInt8(ascii: "0") { offset += 1 } else if digits(&self) == 0 { throw fail("expected a digit") }
            if peek == UInt8(ascii: ".") {
                offset += 1
                guard digits(&self) > 0 else { throw fail("expected a digit after the decimal point") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                offset += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { offset += 1 }
                guard digits(&self) > 0 else { throw fail("expected a digit in the exponent") }
            }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = peek, let digit = Character(Unicode.Scalar(byte)).hexDigitValue else {
                    throw fail("expected four hexadecimal digits")
                }
                value = value << 4 | UInt32(digit)
                offset += 1
            }
            return value
        }

        mutating func string() throws(SyntaxError) -> String {
            offset += 1  // the opening quote
            var scalars = String.UnicodeScalarView()
            var run = offset  // start of unescaped bytes not yet copied
            func flush(_ parser: Parser, to end: Int, into scalars: inout String.UnicodeScalarView) throws(SyntaxError) {
                guard run < end else { return }
                guard let text = String(validating: parser.bytes[run..<end], as: UTF8.self) else {
                    throw parser.fail("the string is not valid UTF-8")
                }
                scalars.append(contentsOf: text.unicodeScalars)
            }
            while true {
                guard let byte = peek else { throw fail("unterminated string") }
                if byte == UInt8(ascii: "\"") {
                    try flush(self, to: offset, into: &scalars)
                    offset += 1
                    return String(scalars)
                }
                if byte < 0x20 { throw fail("control character in a string") }
                if byte != UInt8(ascii: "\\") { offset += 1; continue }
                try flush(self, to: offset, into: &scalars)
                offset += 1
                guard let escape = peek else { throw fail("unterminated escape") }
                offset += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard peek == UInt8(ascii: "\\") else { throw fail("lone high surrogate") }
                        offset += 1
                        guard peek == UInt8(ascii: "u") else { throw fail("lone high surrogate") }
                        offset += 1
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("invalid low surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
                    scalars.append(scalar)
                default:
                    throw fail("invalid escape")
                }
                run = offset
            }
        }
    }
}
