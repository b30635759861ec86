import Foundation

/// One whole WebSocket message: text or binary, however many frames it came in.
public enum WebSocketMessage: Sendable, Hashable {
  /// A text message (valid UTF-8 on the wire).
  case text(String)
  /// A binary message.
  case binary(Data)

  /// The message's bytes: a text message's UTF-8, or a binary message's data.
  public var data: Data {
    switch self {
    case .text(let text): Data(text.utf8)
    case .binary(let data): data
    }
  }

  /// The message's text, or `nil` for a binary message.
  public var text: String? {
    if case .text(let text) = self { text } else { nil }
  }
}

/// Why a WebSocket connection was closed: the status code of a close frame (RFC 6455
/// §7.4), an open set of values with the registered ones named.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  /// The code as it goes on the wire.
  public let rawValue: UInt16

  /// A close code with the given value.
  public init(rawValue: UInt16) {
    self.rawValue = rawValue
  }

  /// 1000: the purpose of the connection is fulfilled.
  public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
  /// 1001: an endpoint is going away (a server shutting down, a page closed).
  public static let goingAway = WebSocketCloseCode(rawValue: 1001)
  /// 1002: an endpoint broke the protocol.
  public static let protocolError = WebSocketCloseCode(rawValue: 1002)
  /// 1003: an endpoint received a kind of message it does not accept.
  public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
  /// 1005: the close frame carried no code (never sent; reported instead).
  public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
  /// 1006: the connection ended without a close frame (never sent; reported instead).
  public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
  /// 1007: a message's data did not fit its type, such as a text message that is not UTF-8.
  public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
  /// 1008: a message broke the endpoint's policy.
  public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
  /// 1009: a message was larger than the endpoint accepts.
  public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
  /// 1010: the server did not negotiate an extension the client requires.
  public static let mandatoryExtensionMissing = WebSocketCloseCode(rawValue: 1010)
  /// 1011: the server met a condition that kept it from fulfilling the request.
  public static let internalServerError = WebSocketCloseCode(rawValue: 1011)

  /// 1012: the server is restarting; a client may reconnect.
  public static let serviceRestart = WebSocketCloseCode(rawValue: 1012)
  /// 1013: the server is overloaded; a client should try again later.
  public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)

  /// Whether an endpoint may put this code in a close frame (RFC 6455 §7.4 and IANA's
  /// registry): the registered codes other than 1004–1006 and 1015, and 3000–4999 for
  /// libraries and applications.
  public var isSendable: Bool {
    switch rawValue {
    case 1000...1003, 1007...1014, 3000...4999: true
    default: false
    }
  }

  /// The code as a number, such as "1000".
  public var description: String {
    "\(rawValue)"
  }
}

/// A close frame's code and reason.
public struct WebSocketClosure: Sendable, Hashable {
  /// The code; ``WebSocketCloseCode/noStatusReceived`` when the frame carried none.
  public var code: WebSocketCloseCode
  /// The reason the frame gave (empty when none).
  public var reason: String

  /// A closure with `code` and `reason`.
  public init(code: WebSocketCloseCode, reason: String = "") {
    self.code = code
    self.reason = reason
  }
}
