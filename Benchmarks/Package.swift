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
    ],
    targets: [
        .executableTarget(
            name: "ChronicleBenchmarks",
            dependencies: [.product(name: "Chronicle", package: chronicle)],
            path: "Sources/ChronicleBenchmarks"
        ),
    ],
    swiftLanguageModes: [.v6]
)
