// swift-tools-version: 6.1
import PackageDescription

// The block-cost benchmarks (ordo-one/benchmark), in a package of their own
// so that the benchmark library and its malloc interposer never enter
// Tactus's own build or its tests. Run them with `make bench`, or:
//
//   swift package --package-path Benchmarks --scratch-path .build-bench/benchmarks benchmark
let package = Package(
    name: "TactusBenchmarks",
    dependencies: [
        .package(name: "Tactus", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // What the benchmarks run: the patterns, the host, Tactus's block loop, the seed algorithm.
        .target(name: "BlockCostKit", dependencies: [
            .product(name: "TactusEngine", package: "Tactus"), .product(name: "TactusModel", package: "Tactus"),
            .product(name: "TactusOffline", package: "Tactus"),
        ]),
        // Tactus's per-block cost, and the seed algorithm's on the same patterns (wall clock).
        .executableTarget(
            name: "BlockCost",
            dependencies: ["BlockCostKit", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/BlockCost",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        // The same loops counted in instructions, under callgrind (scripts/bench).
        .target(name: "CCallgrind"),
        .executableTarget(name: "block-cost-count", dependencies: ["BlockCostKit", "CCallgrind"]),
    ]
)
