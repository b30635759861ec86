import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The opening handshake as bytes on a connection: the upgrade request serialized as
/// HTTP/1.1, and the server's answer read by the one head reader (``ResponseHeadReader``).
struct WebSocketUpgrade: Sendable {
  /// The request's URL, as `http` or `https`.
  let url: URL
  let handshake: WebSocketHandshake
  /// The upgrade request, as it goes on the wire.
  let head: [UInt8]
  /// How much of a refusal's body is kept.
  let limit: Int

  /// The upgrade of `request` to `url` (its `http` or `https` form): its header fields
  /// (less those the handshake owns) and the subprotocols offered in `options` or in the
  /// request's own `Sec-WebSocket-Protocol`, checked before anything is sent.
  init(_ request: TransportRequest, url: URL, options: TransportWebSocketOptions)
    throws(HTTPError)
  {
    self.url = url
    guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false),
      let host = parts.host, !host.isEmpty
    else { throw .transport(URLError(.unsupportedURL)) }
    var fields = request.head.allHTTPHeaderFields ?? [:]
    let subprotocols = try WebSocketHandshake.subprotocols(
      options.subprotocols, takingFrom: &fields)
    handshake = WebSocketHandshake(subprotocols: subprotocols)
    var target = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
    if let query = parts.percentEncodedQuery { target += "?" + query }
    let authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    let hostField = fields.first { $0.key.lowercased() == "host" }?.value
    let hostValue = hostField ?? authority + (parts.port.map { ":\($0)" } ?? "")
    var text = "GET \(target) HTTP/1.1\r\nHost: \(hostValue)\r\n"
    for (name, value) in fields.sorted(by: { $0.key < $1.key })
    where !WebSocketHandshake.owns(name) {
      text += "\(name): \(value)\r\n"
    }
    for (name, value) in handshake.requestHeaders { text += "\(name): \(value)\r\n" }
    head = Array((text + "\r\n").utf8)
    limit = min(options.transport.bufferSize, 1 << 20)
  }

  /// The index after the blank line that ends a head, if it has arrived.
  static func endOfHead(_ bytes: [UInt8], from start: Int) -> Int? {
    var index = start
    while index + 3 < bytes.count {
      if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13,
        bytes[index + 3] == 10
      {
        return index + 4
      }
      index += 1
    }
    return nil
  }

  /// The status line and fields of a response head, read by the one head reader
  /// (``ResponseHeadReader``), line by line.
  static func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> HTTPResponse {
    var reader = ResponseHeadReader()
    bytes.withUnsafeBytes { raw in
      var start = 0
      for index in raw.indices where raw[index] == 10 {
        let end = index > start && raw[index - 1] == 13 ? index - 1 : index
        reader.read(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
        start = index + 1
      }
    }
    guard let response = reader.response(url: nil) else {
      throw .transport(
        .badServerResponse, reason: "WebSocket handshake: the answer has no HTTP/1.1 status line")
    }
    return response
  }
}
