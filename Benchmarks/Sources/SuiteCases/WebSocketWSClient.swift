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
      let expected: WebSocketMessage =
        switch frame {
        case .text(let text): .text(text)
        case .binary(let buffer): .binary(buffer)
        default: .binary(ByteBuffer())
        }
      let echo = WebSocketCase.Client(
        send: { try await outbound.write(frame) },
        makeReader: {
          var echoes = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
          return WebSocketCase.Reader {
            guard let echo = try await echoes.next() else { return nil }
            return (size(echo), echo == expected)
          }
        })
      let outcome =
        switch setup.mode {
        case .latency: try await WebSocketCase.latency(echo, setup)
        case .throughput: try await WebSocketCase.throughput(echo, setup)
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
}
