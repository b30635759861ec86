// swift-tools-version: 6.1
// Courier for Swift 6.1 and later: the same package as Package.swift (Swift 6.0), plus package
// traits, every one off by default, that bring in an integration and its one dependency. A build
// without them, Courier's own or a user's, fetches no package at all. Keep the two manifests'
// products and targets the same.
import PackageDescription

let package = Package(
  name: "Courier",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "Courier", targets: ["Courier"]),
    .library(name: "CourierTesting", targets: ["CourierTesting"]),
    .executable(name: "movies", targets: ["movies"]),
  ],
  traits: [
    .trait(
      name: "Logging",
      description: "LoggingMiddleware(logger:) writes to a swift-log Logger, with metadata."),
    .trait(
      name: "Metrics",
      description: "HTTPClientMetrics records requests as swift-metrics, OpenTelemetry's names."),
    .trait(
      name: "Tracing",
      description: "Configuration.tracer: client spans per request, W3C trace context injected."),
    .trait(
      name: "OpenAPI",
      description: "OpenAPITransport carries a swift-openapi-generator client over an HTTPClient."),
    .default(enabledTraits: []),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.7.0"),
    .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.3.0"),
    .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
  ],
  targets: [
    .target(
      name: "Courier",
      dependencies: [
        "CCourierCurl",
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
        .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
        .product(
          name: "Tracing", package: "swift-distributed-tracing",
          condition: .when(traits: ["Tracing"])),
        .product(
          name: "OpenAPIRuntime", package: "swift-openapi-runtime",
          condition: .when(traits: ["OpenAPI"])),
        .product(
          name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
      ]),
    // Courier's own declarations of the libcurl functions CurlTransport calls, loaded at run
    // time with dlopen: no curl headers or link flags at build time.
    .target(
      name: "CCourierCurl",
      linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
    .target(name: "CourierTesting", dependencies: ["Courier"]),
    .executableTarget(name: "movies", dependencies: ["Courier", "CourierTesting"]),
    // Helpers shared by the test targets and lockcount (a watchdog, a signal); not a product.
    .target(
      name: "CourierTestSupport", dependencies: ["Courier", "CourierTesting"],
      path: "Tests/Support"),
    // Counts lock acquisitions per GET (`swift run lockcount`); not a product.
    .executableTarget(
      name: "lockcount", dependencies: ["Courier", "CourierTesting", "CourierTestSupport"]),
    .testTarget(
      name: "CourierTests",
      dependencies: [
        "Courier", "CourierTesting", "CourierTestSupport",
        // The traits' tests read what the integrations wrote through the test kits.
        .product(
          name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Logging"])),
        .product(
          name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
        .product(
          name: "InMemoryTracing", package: "swift-distributed-tracing",
          condition: .when(traits: ["Tracing"])),
      ]),
    .testTarget(
      name: "CourierTestingTests",
      dependencies: ["Courier", "CourierTesting", "CourierTestSupport"]),
    .testTarget(
      name: "CourierIntegrationTests",
      dependencies: [
        "Courier", "CourierTesting", "CourierTestSupport",
        .product(
          name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Logging"])),
        .product(
          name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
        .product(
          name: "InMemoryTracing", package: "swift-distributed-tracing",
          condition: .when(traits: ["Tracing"])),
        // The client generated from Tests/OpenAPI/openapi.yaml (OpenAPI/Generated).
        .product(
          name: "OpenAPIRuntime", package: "swift-openapi-runtime",
          condition: .when(traits: ["OpenAPI"])),
        .product(
          name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
