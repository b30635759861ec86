// swift-tools-version: 6.1
import PackageDescription

// Benchmarks live in their own package so that only they depend on benchmarking packages and
// on peers; the root package stays dependency-free. `run.sh` runs them all.

/// What every benchmark program links.
let courier: [Target.Dependency] = [
  "BenchmarkFixtures",
  .product(name: "Courier", package: "Courier"),
  .product(name: "CourierTesting", package: "Courier"),
]

/// What the ordo-one micro-benchmarks link; their targets live under `Sources/Benchmarks/`,
/// the folder name the `benchmark` command plugin looks for.
let microBenchmark: [Target.Dependency] =
  courier + [.product(name: "Benchmark", package: "benchmark")]

let package = Package(
  name: "CourierBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "Courier", path: "../"),
    .package(
      url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1",
      traits: ["MallocInterposer"]),
  ],
  targets: [
    .target(
      name: "BenchmarkFixtures", dependencies: [.product(name: "Courier", package: "Courier")]),
    .executableTarget(
      name: "Pipeline", dependencies: microBenchmark, path: "Sources/Benchmarks/Pipeline",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    .executableTarget(
      name: "RequestBuilding", dependencies: microBenchmark,
      path: "Sources/Benchmarks/RequestBuilding",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    .executableTarget(name: "PipelineCost", dependencies: courier),
    .executableTarget(name: "InFlight", dependencies: courier),
    .executableTarget(name: "ConnectionsPerHost", dependencies: courier),
    .executableTarget(name: "VersusRaw", dependencies: courier),
  ],
  swiftLanguageModes: [.v6]
)
