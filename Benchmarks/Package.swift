// swift-tools-version: 6.0
import PackageDescription

// Benchmarks live in their own package so that only they may depend on benchmarking
// packages and peers; the root package stays dependency-free.
let package = Package(
  name: "CourierBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [.package(name: "Courier", path: "../")],
  targets: [
    .target(name: "BenchmarkFixtures"),
    .executableTarget(
      name: "PipelineCost",
      dependencies: [
        "BenchmarkFixtures",
        .product(name: "Courier", package: "Courier"),
        .product(name: "CourierTesting", package: "Courier"),
      ]
    ),
    .executableTarget(
      name: "InFlight",
      dependencies: [
        "BenchmarkFixtures",
        .product(name: "Courier", package: "Courier"),
        .product(name: "CourierTesting", package: "Courier"),
      ]
    ),
    .executableTarget(
      name: "ConnectionsPerHost",
      dependencies: [
        "BenchmarkFixtures",
        .product(name: "Courier", package: "Courier"),
        .product(name: "CourierTesting", package: "Courier"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
