// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Chronicle",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Chronicle", targets: ["Chronicle"]),
        .library(name: "ChronicleTesting", targets: ["ChronicleTesting"]),
        .library(name: "ChronicleSync", targets: ["ChronicleSync"]),
        .executable(name: "chronicle", targets: ["ChronicleCLI"]),
    ],
    targets: [
        .target(
            name: "Chronicle",
            dependencies: ["ChronicleSystem"],
            path: "Sources/Chronicle",
            exclude: ["README.md"]
        ),
        // What Swift cannot reach by itself, in inline C: Linux's futex
        // system call (variadic), on which the processes sharing a journal
        // sleep; the processor's CRC-32C instruction, for the checksum that
        // frames every journal record; the runtime's `swift_tryRetain`,
        // through which a store's follower reaches the store.
        .target(
            name: "ChronicleSystem",
            path: "Sources/ChronicleSystem"
        ),
        // Test support for Swift Testing: fresh stores, deterministic ids and
        // clocks, commit and change-stream expectations, journal snapshots.
        .target(
            name: "ChronicleTesting",
            dependencies: ["Chronicle"],
            path: "Sources/ChronicleTesting"
        ),
        // The sync client: a store kept in step with a scope on a
        // `chronicle-server` (see Server/), over URLSession long-polling.
        .target(
            name: "ChronicleSync",
            dependencies: ["Chronicle"],
            path: "Sources/ChronicleSync"
        ),
        .executableTarget(
            name: "DoggoDB",
            dependencies: ["Chronicle"],
            path: "Examples/DoggoDB"
        ),
        // Inspects journals from the command line: log, show, state, history, diff, verify, export, stats, studio.
        // (Named ChronicleCLI, not chronicle: on a case-insensitive file system
        // Sources/chronicle and Sources/Chronicle would be one folder.)
        .executableTarget(
            name: "ChronicleCLI",
            dependencies: ["Chronicle"],
            path: "Sources/ChronicleCLI"
        ),
        // Two processes editing one list through a local chronicle-server.
        .executableTarget(
            name: "SyncedTodo",
            dependencies: ["Chronicle", "ChronicleSync"],
            path: "Examples/SyncedTodo",
            exclude: ["start-server"]
        ),
        .executableTarget(
            name: "TimeTravel",
            dependencies: ["Chronicle"],
            path: "Examples/TimeTravel"
        ),
        // Appends to a journal until killed; the crash test launches it.
        .executableTarget(
            name: "ChronicleCrashChild",
            dependencies: ["Chronicle"],
            path: "Tests/ChronicleCrashChild"
        ),
        // One of several processes sharing a store, on command; the sharing tests launch it.
        .executableTarget(
            name: "ChronicleSharingChild",
            dependencies: ["Chronicle"],
            path: "Tests/ChronicleSharingChild"
        ),
        .testTarget(
            name: "ChronicleTests",
            dependencies: ["Chronicle", "ChronicleTesting", "ChronicleCrashChild", "ChronicleSharingChild", "ChronicleCLI"],
            path: "Tests/ChronicleTests"
        ),
        .testTarget(
            name: "ChronicleSyncTests",
            dependencies: ["Chronicle", "ChronicleSync"],
            path: "Tests/ChronicleSyncTests"
        ),
        .testTarget(
            name: "ChronicleTestingTests",
            dependencies: ["Chronicle", "ChronicleTesting"],
            path: "Tests/ChronicleTestingTests",
            exclude: ["__Snapshots__"],
            // Recorded journals the tests start from (`.freshStore(journal:bundle:)`).
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
