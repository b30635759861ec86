import Courier
import Foundation

/// ``WebSocketCase`` through Courier: `HTTPClient.webSocket` over CurlTransport.
enum CourierEcho {
  static func run(_ setup: WebSocketCase.Setup) async throws -> WebSocketCase.Outcome {
    let client = HTTPClient(baseURL: setup.url, transport: CurlTransport())
    let socket = try await client.webSocket(
      Request<Data>(path: "echo"),
      settings: .init(maximumMessageSize: 1 << 24, pingInterval: nil))
    let message: WebSocketMessage =
      setup.text
      ? .text(String(decoding: setup.payload, as: UTF8.self)) : .binary(Data(setup.payload))
    let echo = WebSocketCase.Client(
      send: { try await socket.send(message) },
      makeReader: {
        var echoes = socket.messages.makeAsyncIterator()
        return WebSocketCase.Reader {
          guard let echo = try await echoes.next() else { return nil }
          return (size(echo), echo == message)
        }
      })
    let outcome =
      switch setup.mode {
      case .latency: try await WebSocketCase.latency(echo, setup)
      case .throughput: try await WebSocketCase.throughput(echo, setup)
      }
    await socket.close()
    return outcome
  }

  static func size(_ message: WebSocketMessage) -> Int {
    switch message {
    case .text(let text): text.utf8.count
    case .binary(let data): data.count
    }
  }
}
