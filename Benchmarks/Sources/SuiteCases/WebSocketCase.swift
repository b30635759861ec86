import Foundation

/// WebSocket echo benchmarks: one connection to `WebSocketEchoServer` (path `/echo`) over
/// 127.0.0.1, by Courier (CurlTransport) or by hummingbird-project's WSClient (SwiftNIO).
///
/// - `latency`: send one message, wait for its echo, `count` times in a row; each round
///   trip is timed too (`p50_ns`, `p99_ns`).
/// - `throughput`: send `count` messages back to back while another task reads the echoes;
///   the region ends with the last echo.
///
/// Both warm up on the same connection first (`warmup` messages, the same mode), and the
/// connection is opened before and closed after the measured region.
///
///   Suite websocket courier|wsclient --url ws://127.0.0.1:PORT --mode latency|throughput
///                   --kind text|binary --bytes 16 [--count 5000] [--warmup 200]
enum WebSocketCase {
  enum Mode: String {
    case latency, throughput
  }

  /// What one run does.
  struct Setup: Sendable {
    let url: URL
    let mode: Mode
    /// A text message (ASCII) or a binary one.
    let text: Bool
    /// The message's size in bytes.
    let bytes: Int
    let count: Int
    let warmup: Int

    /// The message's bytes: ASCII letters for text, a fixed pseudo-random pattern for binary.
    var payload: [UInt8] {
      if text {
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        return (0..<bytes).map { letters[$0 % letters.count] }
      }
      var state: UInt64 = 0x9E37_79B9_7F4A_7C15
      return (0..<bytes).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 56)
      }
    }
  }

  /// What a variant measured.
  struct Outcome: Sendable {
    var sample: Sample
    /// Each round trip's time (latency mode).
    var roundTrips: [Duration] = []
  }

  static let variants = ["courier", "wsclient"]

  static func run(_ arguments: Arguments) async throws {
    guard let mode = Mode(rawValue: arguments.string("mode", default: "latency")) else {
      throw SuiteError.badOption("mode", arguments.string("mode", default: ""))
    }
    let kind = arguments.string("kind", default: "text")
    guard kind == "text" || kind == "binary" else { throw SuiteError.badOption("kind", kind) }
    let setup = Setup(
      url: try arguments.url("url"), mode: mode, text: kind == "text",
      bytes: try arguments.int("bytes", default: 16),
      count: try arguments.int("count", default: 5000),
      warmup: try arguments.int("warmup", default: 200))
    let outcome: Outcome
    switch arguments.variant {
    case "courier": outcome = try await CourierEcho.run(setup)
    case "wsclient": outcome = try await WSClientEcho.run(setup)
    default: throw SuiteError.unknownVariant("websocket", arguments.variant)
    }
    var extra = ["payload_bytes": setup.bytes]
    if !outcome.roundTrips.isEmpty {
      let sorted = outcome.roundTrips.sorted()
      func nanoseconds(atFraction fraction: Double) -> Int {
        let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))
        let (seconds, attoseconds) = sorted[index].components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
      }
      extra["p50_ns"] = nanoseconds(atFraction: 0.5)
      extra["p99_ns"] = nanoseconds(atFraction: 0.99)
    }
    Report(
      benchmark: "websocket", variant: arguments.variant, units: setup.count,
      unit: mode == .latency ? "round trip" : "message", sample: outcome.sample, extra: extra
    ).print()
  }

  /// Fails the run when an echo is not the message sent.
  static func check(echoed bytes: Int, _ setup: Setup) throws {
    guard bytes == setup.bytes else {
      throw SuiteError.unexpected("an echo of \(bytes) bytes, not \(setup.bytes)")
    }
  }

  /// What a client under test gives the cases: a send of the prepared message, and readers
  /// of echoes, so that one measuring loop serves every client.
  struct Client: Sendable {
    /// Sends the prepared message once.
    let send: @Sendable () async throws -> Void
    /// Makes a reader of echoes, on the task that will read.
    let makeReader: @Sendable () -> Reader
  }

  /// Reads echoes: each call gives the next one's size and whether it is the message sent
  /// byte for byte, or `nil` once the connection has closed.
  final class Reader {
    let next: () async throws -> (size: Int, same: Bool)?

    init(_ next: @escaping () async throws -> (size: Int, same: Bool)?) {
      self.next = next
    }
  }

  /// Send, wait for the echo, `setup.count` times, after a warm-up whose echoes are compared
  /// whole; each round trip is timed too.
  static func latency(_ client: Client, _ setup: Setup) async throws -> Outcome {
    let echoes = client.makeReader()
    for _ in 0..<setup.warmup {
      try await client.send()
      guard let echo = try await echoes.next(), echo.same else {
        throw SuiteError.unexpected("the warm-up's echo differs from the message")
      }
    }
    let clock = ContinuousClock()
    var roundTrips: [Duration] = []
    roundTrips.reserveCapacity(setup.count)
    let sample = try await Meter.measure {
      for _ in 0..<setup.count {
        let start = clock.now
        try await client.send()
        guard let echo = try await echoes.next() else {
          throw SuiteError.unexpected("the connection closed")
        }
        roundTrips.append(clock.now - start)
        try check(echoed: echo.size, setup)
      }
    }
    return Outcome(sample: sample, roundTrips: roundTrips)
  }

  /// `setup.count` messages sent back to back while another task reads the echoes; the
  /// measured region ends with the last echo.
  static func throughput(_ client: Client, _ setup: Setup) async throws -> Outcome {
    try await withThrowingTaskGroup(of: Void.self) { group in
      let (warmedUp, signal) = AsyncStream<Void>.makeStream()
      group.addTask {
        defer { signal.finish() }
        let echoes = client.makeReader()
        for index in 0..<(setup.warmup + setup.count) {
          guard let echo = try await echoes.next() else {
            throw SuiteError.unexpected("the connection closed")
          }
          try check(echoed: echo.size, setup)
          if index + 1 == setup.warmup { signal.yield() }
        }
      }
      for _ in 0..<setup.warmup { try await client.send() }
      for await _ in warmedUp { break }
      let sample = try await Meter.measure {
        for _ in 0..<setup.count { try await client.send() }
        try await group.next()
      }
      return Outcome(sample: sample)
    }
  }
}
