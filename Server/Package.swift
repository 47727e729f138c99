// swift-tools-version: 6.2
import PackageDescription

// The sync server: a package of its own so that the Chronicle library keeps
// zero dependencies. It serves scopes (one shared store each) whose commits
// PostgreSQL orders.
let package = Package(
    name: "ChronicleServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "chronicle-server", targets: ["ChronicleServer"]),
        // The sync targets of the issue, on real servers and PostgreSQL (Benchmarks/README.md, "Sync").
        .executable(name: "chronicle-sync-bench", targets: ["SyncBenchmarks"]),
    ],
    dependencies: [
        .package(name: "Chronicle", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
    ],
    targets: [
        // Everything but `main`, so that tests can call the request decoding.
        .target(
            name: "ChronicleServerCore",
            dependencies: [
                .product(name: "Chronicle", package: "Chronicle"),
                .product(name: "ChronicleSync", package: "Chronicle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "ChronicleServer",
            dependencies: ["ChronicleServerCore"]
        ),
        // Launching chronicle-server processes, for the tests and the benchmark.
        .target(name: "ServerProcesses"),
        // Launches chronicle-server processes itself, so it does not link the server.
        .executableTarget(
            name: "SyncBenchmarks",
            dependencies: [
                "ServerProcesses",
                .product(name: "Chronicle", package: "Chronicle"),
                .product(name: "ChronicleSync", package: "Chronicle"),
            ]
        ),
        .testTarget(
            name: "ChronicleServerTests",
            dependencies: [
                "ChronicleServerCore",
                "ServerProcesses",
                .product(name: "Chronicle", package: "Chronicle"),
                .product(name: "ChronicleSync", package: "Chronicle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
