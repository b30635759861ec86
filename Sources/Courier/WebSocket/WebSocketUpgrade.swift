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
    var subprotocols = options.subprotocols
    // Offered in the request's own header: the same as offering them in the options.
    if let offered = fields.removeValue(forCaseInsensitiveKey: "Sec-WebSocket-Protocol") {
      subprotocols += offered.split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces)
      }
    }
    try WebSocketHandshake.check(subprotocols: subprotocols)
    handshake = WebSocketHandshake(subprotocols: subprotocols)
    let owned = Set(handshake.requestHeaders.map { $0.0.lowercased() } + ["host"])
    var target = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
    if let query = parts.percentEncodedQuery { target += "?" + query }
    let authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    let hostField = fields.first { $0.key.lowercased() == "host" }?.value
    let hostValue = hostField ?? authority + (parts.port.map { ":\($0)" } ?? "")
    var text = "GET \(target) HTTP/1.1\r\nHost: \(hostValue)\r\n"
    for (name, value) in fields.sorted(by: { $0.key < $1.key })
    where !owned.contains(name.lowercased()) {
      text += "\(name): \(value)\r\n"
    }
    for (name, value) in handshake.requestHeaders { text += "\(name): \(value)\r\n" }
    head = Array((text + "\r\n").utf8)
    limit = min(options.transport.bufferSize, 1 << 20)
  }

  /// What an answer read so far amounts to.
  enum Answer {
    /// More bytes are needed.
    case incomplete
    /// The server accepted: its `101` answer, the subprotocol it chose, and the bytes after
    /// the head (the first frames).
    case accepted(HTTPResponse, subprotocol: String?, rest: [UInt8])
  }

  /// Reads the answer in `bytes` (all that arrived so far; `atEnd` once the connection has
  /// ended). A `101` that passes the handshake's checks is accepted; any other answer fails
  /// with ``HTTPError/unacceptableStatus(_:)`` and its body, once the body is in.
  func read(_ bytes: [UInt8], atEnd: Bool) throws(HTTPError) -> Answer {
    guard let end = Self.endOfHead(bytes, from: 0) else {
      if atEnd {
        throw .transport(
          .badServerResponse,
          reason: "WebSocket handshake: the server closed the connection without an answer")
      }
      guard bytes.count < 64 * 1024 else {
        throw .transport(
          .badServerResponse, reason: "WebSocket handshake: the answer's head is over 64 KiB")
      }
      return .incomplete
    }
    var response = try Self.parseHead(bytes[..<end])
    response.url = url
    let rest = Array(bytes[end...])
    guard response.status == 101 else {
      guard
        let body = try Self.refusalBody(of: response, bytes: rest, limit: limit, atEnd: atEnd)
      else { return .incomplete }
      response.body = body
      throw .unacceptableStatus(response)
    }
    let subprotocol = try handshake.validate(response.headers)
    return .accepted(response, subprotocol: subprotocol, rest: rest)
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

  /// A refusal's body once it is all in `bytes` (or, `atEnd`, the connection has ended):
  /// none for 1xx, 204 and 304; else by its `Content-Length`, or chunked, or to the
  /// connection's end; at most `limit` bytes are kept (of a chunked body, its data). `nil`
  /// while more is to come. A length
  /// that cannot frame the body, or a chunk size that is not a number, fails with
  /// `badServerResponse`.
  static func refusalBody(
    of response: HTTPResponse, bytes: [UInt8], limit: Int, atEnd: Bool
  ) throws(HTTPError) -> Data? {
    if response.status < 200 || response.status == 204 || response.status == 304 {
      return Data()
    }
    let chunked = response.headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true
    var length: Int?
    if !chunked {
      // The transfers' rule: a length that is not a number, or lengths that disagree,
      // cannot frame the body.
      let values = response.headers.values(for: "Content-Length")
      guard let value = ResponseHeadReader.contentLength(values) else {
        throw .transport(
          .badServerResponse, reason: "WebSocket handshake: Content-Length \(values)")
      }
      length = value.map { Int(clamping: $0) }
    }
    if let length, bytes.count >= length { return Data(bytes.prefix(min(length, limit))) }
    if chunked {
      // Its data, never its framing: once the last chunk is in, or `limit` bytes of data,
      // or the end. The framing read is bounded too (twice the limit), so that tiny chunks
      // with long extensions cannot make the handshake hold bytes without bound.
      let (body, isComplete) = try dechunked(bytes)
      let done = isComplete || body.count >= limit || bytes.count >= 2 * limit || atEnd
      return done ? Data(body.prefix(limit)) : nil
    }
    if bytes.count >= limit { return Data(bytes.prefix(limit)) }
    guard atEnd else { return nil }
    return Data(bytes.prefix(limit))
  }

  /// The data of a chunked body in `bytes`, and whether its last chunk has arrived, by the
  /// one chunked decoder (``ChunkedDecoder``): hostile framing fails with
  /// `badServerResponse`.
  static func dechunked(_ bytes: [UInt8]) throws(HTTPError) -> (Data, isComplete: Bool) {
    var decoder = ChunkedDecoder()
    let body = bytes.withUnsafeBytes { raw in
      Result { () throws(HTTPError) in try decoder.decode(raw) }
    }
    return (try body.get(), decoder.isComplete)
  }
}

extension Dictionary where Key == String {
  /// Removes the entry whose key equals `name` in any case, returning its value.
  fileprivate mutating func removeValue(forCaseInsensitiveKey name: String) -> Value? {
    guard let key = keys.first(where: { $0.lowercased() == name.lowercased() }) else {
      return nil
    }
    return removeValue(forKey: key)
  }
}
