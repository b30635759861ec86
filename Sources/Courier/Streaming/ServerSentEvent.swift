import Foundation

/// One Server-Sent Event, as the WHATWG HTML standard's event stream format defines it.
public struct ServerSentEvent: Sendable, Equatable {
  /// The event type: the `event:` field, or `"message"` when the event named none.
  public var event: String
  /// The `data:` lines, joined with `\n`.
  public var data: String
  /// The last event ID when the event was dispatched (set by this or an earlier `id:` field).
  public var id: String

  /// Creates an event.
  public init(event: String = "message", data: String, id: String = "") {
    self.event = event
    self.data = data
    self.id = id
  }

  /// The data decoded as JSON — the shape LLM streaming APIs send.
  public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder = JSONDecoder())
    throws(HTTPError) -> T
  {
    do {
      return try decoder.decode(type, from: Data(data.utf8))
    } catch {
      throw .decodingFailed(
        reason: "event '\(event)': " + DecodingFailure.describe(error, as: T.self),
        response: HTTPResponse(status: 200, body: Data(data.utf8)))
    }
  }
}
