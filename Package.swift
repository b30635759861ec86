// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Courier",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "Courier", targets: ["Courier"]),
    .library(name: "CourierTesting", targets: ["CourierTesting"]),
    .executable(name: "movies", targets: ["movies"]),
  ],
  targets: [
    .target(name: "Courier", dependencies: ["CCourierCurl"]),
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
      name: "CourierTests", dependencies: ["Courier", "CourierTesting", "CourierTestSupport"]),
    .testTarget(
      name: "CourierTestingTests",
      dependencies: ["Courier", "CourierTesting", "CourierTestSupport"]),
    .testTarget(
      name: "CourierIntegrationTests",
      dependencies: ["Courier", "CourierTesting", "CourierTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
