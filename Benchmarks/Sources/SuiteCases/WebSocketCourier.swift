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
    let outcome =
      switch setup.mode {
      case .latency: try await latency(socket, message, setup)
      case .throughput: try await throughput(socket, message, setup)
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

  static func latency(
    _ socket: WebSocket, _ message: WebSocketMessage, _ setup: WebSocketCase.Setup
  )
    async throws -> WebSocketCase.Outcome
  {
    var echoes = socket.messages.makeAsyncIterator()
    for _ in 0..<setup.warmup {
      try await socket.send(message)
      guard let echo = try await echoes.next(), echo == message else {
        throw SuiteError.unexpected("the warm-up's echo differs from the message")
      }
    }
    let clock = ContinuousClock()
    var roundTrips: [Duration] = []
    roundTrips.reserveCapacity(setup.count)
    let sample = try await Meter.measure {
      for _ in 0..<setup.count {
        let start = clock.now
        try await socket.send(message)
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
    _ socket: WebSocket, _ message: WebSocketMessage, _ setup: WebSocketCase.Setup
  ) async throws -> WebSocketCase.Outcome {
    try await withThrowingTaskGroup(of: Void.self) { group in
      let (warmedUp, signal) = AsyncStream<Void>.makeStream()
      group.addTask {
        defer { signal.finish() }
        var echoes = socket.messages.makeAsyncIterator()
        for index in 0..<(setup.warmup + setup.count) {
          guard let echo = try await echoes.next() else {
            throw SuiteError.unexpected("the connection closed")
          }
          try WebSocketCase.check(echoed: size(echo), setup)
          if index + 1 == setup.warmup { signal.yield() }
        }
      }
      for _ in 0..<setup.warmup { try await socket.send(message) }
      for await _ in warmedUp { break }
      let sample = try await Meter.measure {
        for _ in 0..<setup.count { try await socket.send(message) }
        try await group.next()
      }
      return WebSocketCase.Outcome(sample: sample)
    }
  }
}
