import Courier
import Foundation

// The chat types of the DocC article "WebSockets", for the tests that hold its snippet (unit)
// and for the WebSocket integration tests. Public here only so both test targets see them.

/// A chat room, as the article's endpoint.
public enum ChatApi: Endpoint {
  /// The room with this id.
  case room(Int)
  /// Unused: messages are read from the socket.
  public typealias Response = Data
  /// `rooms/{id}`.
  public var path: String {
    switch self {
    case .room(let id): "rooms/\(id)"
    }
  }
}

/// One line of chat, sent and received as JSON.
public struct ChatLine: Codable, Sendable, Equatable {
  /// Who wrote it.
  public var from: String
  /// What they wrote.
  public var text: String

  /// A line from `from`.
  public init(from: String, text: String) {
    self.from = from
    self.text = text
  }
}
