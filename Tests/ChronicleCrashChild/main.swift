// The child process of the journal crash test (JournalCrashTests).
//
// Usage: ChronicleCrashChild <journal path>
// Opens the journal with full durability and appends commits forever,
// printing each version (unbuffered) only after its append returned.
// The test kills it with SIGKILL at a random moment and checks that every
// printed version survived, and that no commit is partial.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Chronicle
import Foundation

/// The commit for `version`; JournalCrashTests.expectedCommit must build the same.
func crashCommit(_ version: UInt64) -> Commit {
    let length = Int((version &* 7919) % 3000)
    let text = String(repeating: Character(UnicodeScalar(UInt8(97 + version % 26))), count: length)
    return Commit(version: version, timestamp: Date(timeIntervalSinceReferenceDate: Double(version)),
                  label: "crash \(version)", events: [.set(table: 0, key: ObjectKey(Int64(version)), property: 0, value: .string(text))])
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: ChronicleCrashChild <journal path>\n".utf8))
    exit(64)
}
do {
    let journal = try Journal(fileURL: URL(fileURLWithPath: CommandLine.arguments[1]), durability: .full)
    var version = journal.lastVersion
    while true {
        version += 1
        try journal.append(crashCommit(version))
        // One unbuffered write(2) a line, so a line is whole or absent.
        FileHandle.standardOutput.write(Data("\(version)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("ChronicleCrashChild: \(error)\n".utf8))
    exit(1)
}
