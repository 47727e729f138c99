import Foundation

// chronicle: inspect a Chronicle journal from the command line. See Usage.swift.

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

let commands: [String: ([String]) throws(CLIError) -> Void] = [
    "log": LogCommand.run, "show": ShowCommand.run, "state": StateCommand.run, "history": HistoryCommand.run,
    "diff": DiffCommand.run, "verify": VerifyCommand.run, "export": ExportCommand.run, "import": ImportCommand.run,
    "stats": StatsCommand.run,
]

let words = Array(CommandLine.arguments.dropFirst())
guard let name = words.first else {
    printError(Usage.tool)
    exit(64)
}
if ["--help", "-h", "help"].contains(name) {
    print(Usage.tool)
    exit(0)
}
guard let command = commands[name] else {
    printError("chronicle: unknown command \"\(name)\"\n\n" + Usage.tool)
    exit(64)
}
do {
    try command(Array(words.dropFirst()))
} catch {
    printError("chronicle \(name): \(error.message)")
    if case .usage = error { printError("\n" + Usage.commands[name]!) }
    exit(error.status)
}
