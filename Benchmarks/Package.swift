// swift-tools-version: 6.1
import PackageDescription

// Benchmarks live in their own package so that only they depend on benchmarking packages and
// on peers (AsyncHTTPClient, WSClient); the root package stays dependency-free. `run.sh` runs
// them all but the WebSocket cases, which `websocket.sh` runs.

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
    .package(url: "https://github.com/ordo-one/malloc-interposer.git", from: "1.6.1"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    // The WebSocket peer (hummingbird-project's client over SwiftNIO) and the logger it takes.
    .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
  ],
  targets: [
    .target(
      name: "BenchmarkFixtures", dependencies: [.product(name: "Courier", package: "Courier")]),
    // The network suite's cases; two programs run them: `Suite` counts allocations (the
    // malloc interposer linked in), `SuiteTimed` has no counter, for timings.
    .target(
      name: "SuiteCases",
      dependencies: courier + [
        "CurlFloor",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOFoundationCompat", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "WSClient", package: "swift-websocket"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .executableTarget(
      name: "Suite",
      dependencies: [
        "SuiteCases", .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
      ]),
    .executableTarget(name: "SuiteTimed", dependencies: ["SuiteCases"]),
    // The WebSocket cases' one server for both clients: SwiftNIO's WebSocket codec, echoing.
    .executableTarget(
      name: "WebSocketEchoServer",
      dependencies: [
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
      ]),
    // Many WebSocket connections at once through one client, Courier's or WSClient's.
    .executableTarget(
      name: "WebSocketConnections",
      dependencies: courier + [
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "WSClient", package: "swift-websocket"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // libcurl driven from C: the floor the clients are measured against.
    .target(name: "CurlFloor", linkerSettings: [.linkedLibrary("dl")]),
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
    .executableTarget(name: "DownloadToDisk", dependencies: courier),
    .executableTarget(name: "Profile", dependencies: courier),
    .executableTarget(name: "Limits", dependencies: courier),
  ],
  swiftLanguageModes: [.v6]
)
