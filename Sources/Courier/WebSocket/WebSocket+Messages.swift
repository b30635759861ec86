import Foundation

extension WebSocket {
  /// A WebSocket's messages as they arrive: ends when the server closes the connection,
  /// throws when it fails. One loop at a time may read them.
  public struct Messages: AsyncSequence, Sendable {
    /// A message.
    public typealias Element = WebSocketMessage
    /// The error every failure is thrown as.
    public typealias Failure = HTTPError

    let socket: WebSocket

    /// Starts reading.
    public func makeAsyncIterator() -> Iterator {
      Iterator(socket: socket)
    }

    /// Reads the messages.
    public struct Iterator: AsyncIteratorProtocol {
      let socket: WebSocket

      /// The next message, or `nil` once the server has closed the connection.
      public mutating func next() async throws(HTTPError) -> WebSocketMessage? {
        try await socket.receive()
      }

      /// The next message, or `nil` once the server has closed the connection.
      public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
        -> WebSocketMessage?
      {
        try await socket.receive()
      }
    }
  }

  /// A WebSocket's messages decoded from JSON as `Value`.
  public struct DecodedMessages<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    /// A decoded message.
    public typealias Element = Value
    /// The error every failure is thrown as.
    public typealias Failure = HTTPError

    let messages: Messages
    let decoder: JSONDecoder
    let response: HTTPResponse

    /// Starts reading.
    public func makeAsyncIterator() -> Iterator {
      Iterator(messages: messages.makeAsyncIterator(), decoder: decoder, response: response)
    }

    /// Reads and decodes the messages.
    public struct Iterator: AsyncIteratorProtocol {
      var messages: Messages.Iterator
      let decoder: JSONDecoder
      let response: HTTPResponse

      /// The next message decoded, or `nil` once the server has closed the connection.
      public mutating func next() async throws(HTTPError) -> Value? {
        try await next(isolation: nil)
      }

      /// The next message decoded, or `nil` once the server has closed the connection.
      public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
        -> Value?
      {
        guard let message = try await messages.next(isolation: actor) else { return nil }
        do {
          return try decoder.decode(Value.self, from: message.data)
        } catch {
          var response = response
          response.body = message.data
          throw .decodingFailed(reason: "\(error)", response: response)
        }
      }
    }
  }
}
