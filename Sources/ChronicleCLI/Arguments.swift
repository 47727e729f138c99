/// The command line, parsed by hand: positional arguments, `--name value`
/// options and `--flag` flags, checked against what a subcommand accepts.
struct Arguments {
    var positional: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []

    /// Parses `words` for a subcommand that takes `options` (with a value) and `flags` (without).
    init(_ words: [String], options valued: Set<String>, flags known: Set<String>) throws(CLIError) {
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--help" || word == "-h" {
                flags.insert("help")
            } else if word.hasPrefix("--"), word.count > 2 {
                let name = String(word.dropFirst(2))
                if valued.contains(name) {
                    guard index < words.count else { throw .usage("option --\(name) needs a value") }
                    guard options[name] == nil else { throw .usage("option --\(name) is given twice") }
                    options[name] = words[index]
                    index += 1
                } else if known.contains(name) {
                    flags.insert(name)
                } else {
                    throw .usage("unknown option \(word)")
                }
            } else {
                positional.append(word)
            }
        }
    }

    /// The value of option `name` as a version number.
    func version(_ name: String) throws(CLIError) -> UInt64? {
        guard let text = options[name] else { return nil }
        guard let value = UInt64(text) else { throw .usage("--\(name) needs a version number, not \"\(text)\"") }
        return value
    }

    /// Positional argument `index`, which must be a version number.
    func version(at index: Int, _ what: String) throws(CLIError) -> UInt64 {
        guard let value = UInt64(positional[index]) else { throw .usage("\(what) must be a version number, not \"\(positional[index])\"") }
        return value
    }

    /// Checks the number of positional arguments.
    func expect(_ range: ClosedRange<Int>) throws(CLIError) {
        if positional.count < range.lowerBound { throw .usage("missing arguments") }
        if positional.count > range.upperBound { throw .usage("unexpected argument \"\(positional[range.upperBound])\"") }
    }
}
