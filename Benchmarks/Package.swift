// swift-tools-version: 6.2
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name, which differs between
// checkouts (worktrees); derive it rather than hard-coding it.
let chronicle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "ChronicleBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(path: ".."),
        // The peer the side-by-side benchmark measures against (never a
        // dependency of the library). Needs SQLite: apt-get install libsqlite3-dev.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "ChronicleBenchmarks",
            dependencies: [
                .product(name: "Chronicle", package: chronicle),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/ChronicleBenchmarks"
        ),
    ],
    swiftLanguageModes: [.v6]
)
