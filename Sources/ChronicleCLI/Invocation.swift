/// A `chronicle` command line, parsed and checked: the command to run with
/// its arguments, or a help text to print.
///
/// Parsing opens no file and prints nothing, so every command line can be
/// shown to end in an invocation or a usage error without running anything
/// (the `cli-args` fuzz target relies on that). What only the journal can
/// answer (a version it does not have, a type it does not know) is checked
/// when the command runs.
enum Invocation: Equatable {
    /// `--help`: print `text` on standard output and succeed.
    case help(String)
    /// `log FILE [--from V] [--to V] [--type T] [--follow]`.
    case log(path: String, from: UInt64, to: UInt64?, type: String?, follow: Bool = false)
    /// `show FILE V`; `version` is at least 1.
    case show(path: String, version: UInt64)
    /// `state FILE [--at V] [--type T] [--json] [--follow]`.
    case state(path: String, at: UInt64?, type: String?, json: Bool, follow: Bool = false)
    /// `history FILE TYPE KEY [PROPERTY]`.
    case history(path: String, type: String, object: ObjectName, property: String?)
    /// `diff FILE V1 V2`.
    case diff(path: String, from: UInt64, to: UInt64)
    /// `verify FILE`.
    case verify(path: String)
    /// `export FILE --jsonl [--from V] [--to V]`.
    case export(path: String, from: UInt64, to: UInt64?)
    /// `import JSONL OUT`.
    case `import`(input: String, output: String)
    /// `stats FILE`.
    case stats(path: String)
    /// `studio FILE [--output PATH] [--open]`.
    case studio(path: String, output: String?, open: Bool)

    /// How `history` names its object: `#N` for the object key N, else a
    /// primary-key value whose type only the journal's schema tells.
    struct ObjectName: Equatable {
        /// As typed, for messages.
        var text: String
        /// N when the text is `#N`; `nil` for a primary-key value.
        var key: Int64?
    }

    /// Parses the words after the tool's name.
    /// - Throws: ``CLIError/usage(_:)`` for a known command given bad
    ///   arguments, ``CLIError/unknownCommand(_:)`` when the first word names
    ///   no command. Nothing else: parsing reads no file (a `.failed` error
    ///   would mean the help texts and this parser disagree, a bug).
    static func parse(_ words: [String]) throws(CLIError) -> Invocation {
        guard let name = words.first else { throw .unknownCommand(nil) }
        if ["--help", "-h", "help"].contains(name) { return .help(Usage.tool) }
        guard let usage = Usage.commands[name] else { throw .unknownCommand(name) }
        let rest = Array(words.dropFirst())
        // nil: --help was given, so the command's usage is the answer.
        func arguments(options: Set<String> = [], flags: Set<String> = [], positional: ClosedRange<Int>) throws(CLIError) -> Arguments? {
            let arguments = try Arguments(rest, options: options, flags: flags)
            if arguments.flags.contains("help") { return nil }
            try arguments.expect(positional)
            return arguments
        }
        switch name {
        case "log":
            guard let a = try arguments(options: ["from", "to", "type"], flags: ["follow"], positional: 1...1) else { return .help(usage) }
            let follow = a.flags.contains("follow")
            if follow, a.options["to"] != nil { throw .usage("--follow prints commits until interrupted; it takes no --to") }
            return .log(path: a.positional[0], from: try a.version("from") ?? 1, to: try a.version("to"), type: a.options["type"],
                        follow: follow)
        case "show":
            guard let a = try arguments(positional: 2...2) else { return .help(usage) }
            let version = try a.version(at: 1, "V")
            guard version >= 1 else { throw .usage("versions start at 1") }
            return .show(path: a.positional[0], version: version)
        case "state":
            guard let a = try arguments(options: ["at", "type"], flags: ["json", "follow"], positional: 1...1) else { return .help(usage) }
            let follow = a.flags.contains("follow")
            if follow, a.options["at"] != nil { throw .usage("--follow prints the newest state until interrupted; it takes no --at") }
            return .state(path: a.positional[0], at: try a.version("at"), type: a.options["type"], json: a.flags.contains("json"),
                          follow: follow)
        case "history":
            guard let a = try arguments(positional: 3...4) else { return .help(usage) }
            let text = a.positional[2]
            let object = ObjectName(text: text, key: text.hasPrefix("#") ? Int64(text.dropFirst()) : nil)
            if text.hasPrefix("#"), object.key == nil { throw .usage("\(text) is not an object key (#N)") }
            return .history(path: a.positional[0], type: a.positional[1], object: object,
                            property: a.positional.count == 4 ? a.positional[3] : nil)
        case "diff":
            guard let a = try arguments(positional: 3...3) else { return .help(usage) }
            return .diff(path: a.positional[0], from: try a.version(at: 1, "V1"), to: try a.version(at: 2, "V2"))
        case "verify":
            guard let a = try arguments(positional: 1...1) else { return .help(usage) }
            return .verify(path: a.positional[0])
        case "export":
            guard let a = try arguments(options: ["from", "to"], flags: ["jsonl"], positional: 1...1) else { return .help(usage) }
            guard a.flags.contains("jsonl") else { throw .usage("name the format: --jsonl") }
            return .export(path: a.positional[0], from: try a.version("from") ?? 1, to: try a.version("to"))
        case "import":
            guard let a = try arguments(positional: 2...2) else { return .help(usage) }
            return .import(input: a.positional[0], output: a.positional[1])
        case "stats":
            guard let a = try arguments(positional: 1...1) else { return .help(usage) }
            return .stats(path: a.positional[0])
        case "studio":
            guard let a = try arguments(options: ["output"], flags: ["open"], positional: 1...1) else { return .help(usage) }
            return .studio(path: a.positional[0], output: a.options["output"], open: a.flags.contains("open"))
        default:
            // Usage.commands names a command this switch does not know: a bug
            // in the tool, reported as such rather than trapping.
            throw .failed("chronicle has help for \"\(name)\" but no such command")
        }
    }

    /// Runs the command (or prints the help).
    func run() throws(CLIError) {
        switch self {
        case .help(let text): print(text)
        case let .log(path, from, to, type, follow): try LogCommand.run(path: path, from: from, to: to, type: type, follow: follow)
        case let .show(path, version): try ShowCommand.run(path: path, version: version)
        case let .state(path, at, type, json, follow): try StateCommand.run(path: path, at: at, type: type, json: json, follow: follow)
        case let .history(path, type, object, property): try HistoryCommand.run(path: path, type: type, object: object, property: property)
        case let .diff(path, from, to): try DiffCommand.run(path: path, from: from, to: to)
        case let .verify(path): try VerifyCommand.run(path: path)
        case let .export(path, from, to): try ExportCommand.run(path: path, from: from, to: to)
        case let .import(input, output): try ImportCommand.run(input: input, output: output)
        case let .stats(path): try StatsCommand.run(path: path)
        case let .studio(path, output, open): try StudioCommand.run(path: path, output: output, open: open)
        }
    }
}
