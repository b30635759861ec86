import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What of a request's own header fields goes into an upgrade, the same on every transport:
/// the fields the handshake owns are its own, whatever a caller or a middleware set, and
/// subprotocols offered in the request's own `Sec-WebSocket-Protocol` are offered as if they
/// were in the options.
extension WebSocketHandshake {
  /// Whether the handshake writes the field `name` itself (`Host`, `Upgrade`, `Connection`,
  /// the key, the version and the subprotocols), whatever the request says. Extensions are
  /// its too: none is offered (no transport speaks one), so a request's own offer, which a
  /// server could accept, is left out.
  static func owns(_ name: String) -> Bool {
    [
      "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
      "sec-websocket-protocol", "sec-websocket-extensions",
    ].contains(name.lowercased())
  }

  /// The subprotocols an upgrade offers: `offered`, then those of the request's own
  /// `Sec-WebSocket-Protocol`, which is taken out of `fields`; refused as
  /// ``check(subprotocols:)`` refuses.
  static func subprotocols(_ offered: [String], takingFrom fields: inout [String: String])
    throws(HTTPError) -> [String]
  {
    var subprotocols = offered
    for name in fields.keys where name.lowercased() == "sec-websocket-protocol" {
      subprotocols += (fields.removeValue(forKey: name) ?? "").split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces)
      }
    }
    try check(subprotocols: subprotocols)
    return subprotocols
  }

  /// `head` as a platform's WebSocket task takes it (which writes the handshake itself):
  /// without the fields the handshake owns, and offering the subprotocols of
  /// ``subprotocols(_:takingFrom:)``, which it returns too, to check the server's choice by
  /// (``chosenSubprotocol(in:offered:)``).
  static func platformRequest(_ head: URLRequest, offering offered: [String])
    throws(HTTPError) -> (request: URLRequest, subprotocols: [String])
  {
    var fields = head.allHTTPHeaderFields ?? [:]
    let subprotocols = try subprotocols(offered, takingFrom: &fields)
    var request = head
    for name in (head.allHTTPHeaderFields ?? [:]).keys where owns(name) {
      request.setValue(nil, forHTTPHeaderField: name)
    }
    if !subprotocols.isEmpty {
      request.setValue(
        subprotocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
    }
    return (request, subprotocols)
  }
}
