import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import WSClient

/// ``WebSocketCase`` through hummingbird-project's WSClient (swift-websocket), on NIO's
/// singleton event loop group, logging nothing, auto-ping off (its default), frames up to
/// 16 MiB so a 64 KiB message goes as one frame as Courier sends it.
enum WSClientEcho {
  static func run(_ setup: WebSocketCase.Setup) async throws -> WebSocketCase.Outcome {
    let logger = Logger(label: "wsclient-bench", factory: { _ in SwiftLogNoOpLogHandler() })
    let frame: WebSocketOutboundWriter.OutboundFrame =
      setup.text
      ? .text(String(decoding: setup.payload, as: UTF8.self))
      : .binary(ByteBuffer(bytes: setup.payload))
    let result = NIOLockedValueBox<WebSocketCase.Outcome?>(nil)
    try await WebSocketClient.connect(
      url: setup.url.appendingPathComponent("echo").absoluteString,
      configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 24), logger: logger
    ) { inbound, outbound, _ in
      let outcome =
        switch setup.mode {
        case .latency: try await latency(inbound, outbound, frame, setup)
        case .throughput: try await throughput(inbound, outbound, frame, setup)
        }
      result.withLockedValue { $0 = outcome }
    }
    guard let outcome = result.withLockedValue({ $0 }) else {
      throw SuiteError.unexpected("WSClient's handler did not finish")
    }
    return outcome
  }

  static func size(_ message: WebSocketMessage) -> Int {
    switch message {
    case .text(let text): text.utf8.count
    case .binary(let buffer): buffer.readableBytes
    }
  }

  static func latency(
    _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter,
    _ frame: WebSocketOutboundWriter.OutboundFrame, _ setup: WebSocketCase.Setup
  ) async throws -> WebSocketCase.Outcome {
    var echoes = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
    let expected: WebSocketMessage =
      switch frame {
      case .text(let text): .text(text)
      case .binary(let buffer): .binary(buffer)
      default: .binary(ByteBuffer())
      }
    for _ in 0..<setup.warmup {
      try await outbound.write(frame)
      guard let echo = try await echoes.next(), echo == expected else {
        throw SuiteError.unexpected("the warm-up's echo differs from the message")
      }
    }
    let clock = ContinuousClock()
    var roundTrips: [Duration] = []
    roundTrips.reserveCapacity(setup.count)
    let sample = try await Meter.measure {
      for _ in 0..<setup.count {
        let start = clock.now
        try await outbound.write(frame)
        guard let echo = try await echoes.next() else {
          throw SuiteError.unexpected("the connection closed")
        }
        roundTrips.append(clock.now - start)
        try WebSocketCase.check(echoed: size(echo), setup)
      }
    }
    return WebSocketCase.Outcome(sample: sample, roundTrips: roundTrips)
  }

  static func throughput(
    _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter,
    _ frame: WebSocketOutboundWriter.OutboundFrame, _ setup: WebSocketCase.Setup
  ) async throws -> WebSocketCase.Outcome {
    try await withThrowingTaskGroup(of: Void.self) { group in
      let (warmedUp, signal) = AsyncStream<Void>.makeStream()
      group.addTask {
        defer { signal.finish() }
        var echoes = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
        for index in 0..<(setup.warmup + setup.count) {
          guard let echo = try await echoes.next() else {
            throw SuiteError.unexpected("the connection closed")
          }
          try WebSocketCase.check(echoed: size(echo), setup)
          if index + 1 == setup.warmup { signal.yield() }
        }
      }
      for _ in 0..<setup.warmup { try await outbound.write(frame) }
      for await _ in warmedUp { break }
      let sample = try await Meter.measure {
        for _ in 0..<setup.count { try await outbound.write(frame) }
        try await group.next()
      }
      return WebSocketCase.Outcome(sample: sample)
    }
  }
}
