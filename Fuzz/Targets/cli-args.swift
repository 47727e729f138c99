// fuzz-sources: Sources/ChronicleCLI
// fuzz-exclude: Sources/ChronicleCLI/main.swift
// Fuzz target: the `chronicle` tool's command line (Invocation.parse), fed
// argument vectors: the input split at NUL bytes (a NUL cannot occur inside
// an argument), each part decoded as UTF-8 with invalid bytes repaired, as
// CommandLine.arguments does; the first part is the command. Only parsing
// runs: no command is ever run, so no file is opened.
//
// Checks: every command line ends in an Invocation or a usage error
// (CLIError.usage for a known command, .unknownCommand otherwise), never
// another error (parsing reads nothing that could fail), a trap or a hang;
// a usage error carries a message, and the usage text main prints after it
// exists. Help is the answer only when the words ask for it. An invocation
// is exactly what its words say: written back as a command line, it parses
// to the same invocation.
@_cdecl("LLVMFuzzerTestOneInput")
public func cliArgsFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let words = bytes.isEmpty ? [] : bytes.split(separator: 0, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    let invocation: Invocation
    do {
        invocation = try Invocation.parse(words)
    } catch {
        switch error {
        case .usage(let message):
            guard !message.isEmpty else { fuzzViolation("an empty usage message for \(words)") }
            guard let command = words.first, Usage.commands[command] != nil else {
                fuzzViolation("a usage error for \(words), whose command has no usage text")
            }
        case .unknownCommand(let name):
            guard name == words.first, name.map({ Usage.commands[$0] == nil }) ?? true else {
                fuzzViolation("unknownCommand(\(String(describing: name))) for \(words)")
            }
        case .missingFile, .damaged, .failed:
            fuzzViolation("parsing \(words) failed as only running may: \(error)")
        }
        return 0
    }
    if case .help(let text) = invocation {
        let asked = words.first == "help" || words.contains("--help") || words.contains("-h")
        guard asked, text.hasPrefix("usage: chronicle") else { fuzzViolation("help for \(words) that did not ask for it") }
        return 0
    }
    let again: Invocation
    do { again = try Invocation.parse(invocation.canonicalWords) } catch {
        fuzzViolation("\(invocation) written back as \(invocation.canonicalWords) does not parse: \(error)")
    }
    guard again == invocation else {
        fuzzViolation("\(words) parsed to \(invocation), which written back parses to \(again)")
    }
    return 0
}

extension Invocation {
    /// A command line that says this invocation, options after the positional
    /// arguments (the parser accepts any order).
    var canonicalWords: [String] {
        func option(_ name: String, _ value: String?) -> [String] { value.map { ["--\(name)", $0] } ?? [] }
        switch self {
        case .help: return ["--help"]
        case let .log(path, from, to, type, follow):
            return ["log", path] + option("from", String(from)) + option("to", to.map(String.init)) + option("type", type)
                + (follow ? ["--follow"] : [])
        case let .show(path, version):
            return ["show", path, String(version)]
        case let .state(path, at, type, json, follow):
            return ["state", path] + option("at", at.map(String.init)) + option("type", type) + (json ? ["--json"] : [])
                + (follow ? ["--follow"] : [])
        case let .history(path, type, object, property):
            return ["history", path, type, object.text] + (property.map { [$0] } ?? [])
        case let .diff(path, from, to):
            return ["diff", path, String(from), String(to)]
        case let .verify(path):
            return ["verify", path]
        case let .export(path, from, to):
            return ["export", path, "--jsonl"] + option("from", String(from)) + option("to", to.map(String.init))
        case let .import(input, output):
            return ["import", input, output]
        case let .stats(path):
            return ["stats", path]
        case let .studio(path, output, open):
            return ["studio", path] + option("output", output) + (open ? ["--open"] : [])
        }
    }
}
