import Foundation

// chronicle: inspect a Chronicle journal from the command line. See Usage.swift.

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

let words = Array(CommandLine.arguments.dropFirst())
do {
    try Invocation.parse(words).run()
} catch {
    switch error {
    case .unknownCommand(nil):
        printError(Usage.tool)
    case .unknownCommand(let name?):
        printError("chronicle: unknown command \"\(name)\"\n\n" + Usage.tool)
    default:
        let name = words.first ?? ""
        printError("chronicle \(name): \(error.message)")
        if case .usage = error, let usage = Usage.commands[name] { printError("\n" + usage) }
    }
    exit(error.status)
}
