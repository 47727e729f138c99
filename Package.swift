// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Chronicle",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Chronicle", targets: ["Chronicle"]),
    ],
    targets: [
        .target(
            name: "Chronicle",
            path: "Sources/Chronicle"
        ),
        .executableTarget(
            name: "DoggoDB",
            dependencies: ["Chronicle"],
            path: "Examples/DoggoDB"
        ),
        // Appends to a journal until killed; the crash test launches it.
        .executableTarget(
            name: "ChronicleCrashChild",
            dependencies: ["Chronicle"],
            path: "Tests/ChronicleCrashChild"
        ),
        .testTarget(
            name: "ChronicleTests",
            dependencies: ["Chronicle", "ChronicleCrashChild"],
            path: "Tests/ChronicleTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
