import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The opening handshake of RFC 6455 §4, for transports that run it themselves: the
/// headers that ask for the upgrade, and the checks of the server's answer.
package struct WebSocketHandshake: Sendable {
  /// The `Sec-WebSocket-Key` sent: 16 random bytes, base64.
  package let key: String
  /// The subprotocols offered, most preferred first.
  package let subprotocols: [String]

  /// A handshake with a fresh key.
  package init(subprotocols: [String]) {
    var generator = SystemRandomNumberGenerator()
    key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
      .base64EncodedString()
    self.subprotocols = subprotocols
  }

  /// `url` with `ws` read as `http` and `wss` as `https`; any other scheme but those is
  /// refused with ``HTTPError/invalidRequest(reason:)``, as is a URL without a host.
  package static func httpURL(for url: URL?) throws(HTTPError) -> URL {
    guard let url, var parts = URLComponents(url: url, resolvingAgainstBaseURL: true),
      let scheme = parts.scheme?.lowercased()
    else { throw .invalidRequest(reason: "a WebSocket needs a URL") }
    switch scheme {
    case "ws", "http": parts.scheme = "http"
    case "wss", "https": parts.scheme = "https"
    default:
      throw .invalidRequest(
        reason: "a WebSocket URL must be ws, wss, http or https, not \(scheme)")
    }
    guard parts.host?.isEmpty == false, let mapped = parts.url else {
      throw .invalidRequest(reason: "the WebSocket URL \(Redaction.url(url)) has no host")
    }
    return mapped
  }

  /// Refuses subprotocols that cannot go in `Sec-WebSocket-Protocol` (RFC 6455 §4.1: each a
  /// token of RFC 9110, none twice), so that none can smuggle a line into the request.
  package static func check(subprotocols: [String]) throws(HTTPError) {
    let separators = Set("()<>@,;:\\\"/[]?={} \t")
    for name in subprotocols {
      guard !name.isEmpty,
        name.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }),
        !name.contains(where: { separators.contains($0) })
      else {
        throw .invalidRequest(reason: "the WebSocket subprotocol \"\(name)\" is not a token")
      }
    }
    guard Set(subprotocols).count == subprotocols.count else {
      throw .invalidRequest(reason: "a WebSocket subprotocol is offered twice")
    }
  }

  /// `url` in its `ws` or `wss` form (`http` read as `ws`, `https` as `wss`), for APIs that
  /// take only those; refused as ``httpURL(for:)`` refuses.
  package static func webSocketURL(for url: URL?) throws(HTTPError) -> URL {
    let http = try httpURL(for: url)
    var parts = URLComponents(url: http, resolvingAgainstBaseURL: true)
    parts?.scheme = http.scheme == "https" ? "wss" : "ws"
    guard let mapped = parts?.url else { throw .invalidRequest(reason: "no WebSocket URL") }
    return mapped
  }

  /// The `Sec-WebSocket-Accept` a server must answer `key` with: base64 of the SHA-1 of
  /// the key and the protocol's GUID.
  package static func accept(for key: String) -> String {
    let digest = SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))
    return Data(digest).base64EncodedString()
  }

  /// The header fields that ask for the upgrade, to add to the request's own.
  package var requestHeaders: [(String, String)] {
    var fields = [
      ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key),
      ("Sec-WebSocket-Version", "13"),
    ]
    if !subprotocols.isEmpty {
      fields.append(("Sec-WebSocket-Protocol", subprotocols.joined(separator: ", ")))
    }
    return fields
  }

  /// Checks a `101` answer's fields (RFC 6455 §4.1, the client's checks 2–6) and returns the
  /// subprotocol the server chose, if any.
  package func validate(_ headers: HTTPHeaders) throws(HTTPError) -> String? {
    func refuse(_ reason: String) -> HTTPError {
      .transport(.badServerResponse, reason: "WebSocket handshake: \(reason)")
    }
    func tokens(_ name: String) -> [String] {
      headers.values(for: name).flatMap { $0.split(separator: ",") }.map {
        $0.trimmingCharacters(in: .whitespaces).lowercased()
      }
    }
    guard tokens("Upgrade").contains("websocket") else {
      throw refuse("the answer has no `Upgrade: websocket`")
    }
    guard tokens("Connection").contains("upgrade") else {
      throw refuse("the answer has no `Connection: Upgrade`")
    }
    guard let accept = headers["Sec-WebSocket-Accept"] else {
      throw refuse("the answer has no Sec-WebSocket-Accept")
    }
    guard accept.trimmingCharacters(in: .whitespaces) == Self.accept(for: key) else {
      throw refuse("Sec-WebSocket-Accept does not match the key sent")
    }
    return try Self.chosenSubprotocol(in: headers, offered: subprotocols)
  }

  /// The subprotocol an accepting answer's `headers` chose, if any: one of `offered`, and no
  /// extension, since none is offered; otherwise ``HTTPError/transport(_:)``
  /// (`badServerResponse`). The checks of the server's choice on every transport, whether it
  /// runs the handshake itself or a platform task does.
  package static func chosenSubprotocol(in headers: HTTPHeaders, offered: [String])
    throws(HTTPError) -> String?
  {
    func refuse(_ reason: String) -> HTTPError {
      .transport(.badServerResponse, reason: "WebSocket handshake: \(reason)")
    }
    if let extensions = headers["Sec-WebSocket-Extensions"], !extensions.isEmpty {
      throw refuse("the server chose extensions that were not offered (\(extensions))")
    }
    guard let chosen = headers["Sec-WebSocket-Protocol"]?.trimmingCharacters(in: .whitespaces),
      !chosen.isEmpty
    else { return nil }
    guard offered.contains(chosen) else {
      throw refuse("the server chose subprotocol \(chosen), which was not offered")
    }
    return chosen
  }
}
