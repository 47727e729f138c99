import ChronicleServerCore
import Foundation

await ChronicleServerMain.main(arguments: Array(CommandLine.arguments.dropFirst()),
                               environment: ProcessInfo.processInfo.environment)
