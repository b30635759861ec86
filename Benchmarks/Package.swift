// swift-tools-version: 6.0
import PackageDescription

// Benchmarks live in their own package so that only they may depend on benchmarking
// packages and peers; the root package stays dependency-free.

/// What every benchmark program links.
let benchmarkDependencies: [Target.Dependency] = [
  "BenchmarkFixtures",
  .product(name: "Courier", package: "Courier"),
  .product(name: "CourierTesting", package: "Courier"),
]

let package = Package(
  name: "CourierBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [.package(name: "Courier", path: "../")],
  targets: [
    .target(name: "BenchmarkFixtures"),
    .executableTarget(name: "PipelineCost", dependencies: benchmarkDependencies),
    .executableTarget(name: "InFlight", dependencies: benchmarkDependencies),
    .executableTarget(name: "ConnectionsPerHost", dependencies: benchmarkDependencies),
    .executableTarget(name: "VersusRaw", dependencies: benchmarkDependencies),
  ],
  swiftLanguageModes: [.v6]
)
