// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Tactus",
    products: [
        .executable(name: "tactus", targets: ["tactus"]),
        .library(name: "TactusCore", targets: ["TactusCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/attaswift/BigInt", from: "6.0.1"),
    ],
    targets: [
        // The realtime core: pure Swift, no Foundation, kept inside the Embedded subset.
        // Whole-module compilation lets `@_noLocks` see every callee in the module.
        .target(name: "TactusCore", swiftSettings: [.unsafeFlags(["-wmo", "-num-threads", "2"])]),
        // The offline host: transport scripts, a simulated host, event logs.
        .target(name: "TactusOffline", dependencies: ["TactusCore"]),
        .executableTarget(
            name: "tactus",
            dependencies: [
                "TactusCore", "TactusOffline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "TactusCoreTests",
            dependencies: ["TactusCore", "TactusOffline", .product(name: "BigInt", package: "BigInt")]),
        .testTarget(name: "TactusOfflineTests", dependencies: ["TactusCore", "TactusOffline"]),
    ]
)
