import Courier
import Foundation

/// How a response is written on the wire: the head, chunks, reason phrases.
extension LoopbackResponse {
  /// The status line and header fields, ending with the empty line. `Content-Length` and
  /// `Transfer-Encoding` in `headers` are replaced by the framing given.
  ///
  /// A response with a body and no `Content-Type` gets `application/octet-stream`, and every
  /// response gets `X-Content-Type-Options: nosniff` unless `headers` say otherwise: on Apple
  /// platforms URLSession may hold back a body's first bytes (up to 512) to sniff its type
  /// when the server does not name it, which would stall a test that waits for a small first
  /// chunk.
  static func head(
    status: Int, headers: HTTPHeaders, contentLength: Int?, chunked: Bool, closes: Bool
  ) -> Data {
    var text = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
    for field in headers {
      let name = field.name.lowercased()
      if name == "content-length" || name == "transfer-encoding" { continue }
      text += "\(field.name): \(field.value)\r\n"
    }
    if (contentLength ?? 0) > 0 || chunked, !headers.contains("Content-Type") {
      text += "Content-Type: application/octet-stream\r\n"
    }
    if !headers.contains("X-Content-Type-Options") {
      text += "X-Content-Type-Options: nosniff\r\n"
    }
    if let contentLength { text += "Content-Length: \(contentLength)\r\n" }
    if chunked { text += "Transfer-Encoding: chunked\r\n" }
    if closes && !headers.contains("Connection") { text += "Connection: close\r\n" }
    return Data((text + "\r\n").utf8)
  }

  /// Runs `send` on a thread outside Swift's cooperative pool. A client that reads slowly
  /// (one that pauses its transfer, as CurlTransport does) makes a send block until it reads;
  /// blocking a pool thread for that could leave no thread for the client's own reader.
  ///
  /// Each send gets a serial queue of its own, which libdispatch gives a thread at once. Not
  /// the global queue: on Linux it runs as many blocks at once as there are cores and adds a
  /// thread about once a second while they block, so two tests whose clients do not read
  /// held back every other server's sends in the run (measured: ten blocked blocks, the
  /// last one started 8 s late).
  static func aside(_ send: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      DispatchQueue(label: "LoopbackServer send").async {
        continuation.resume(with: Result { try send() })
      }
    }
  }

  /// `data` as one chunk: its size in hex, CRLF, the bytes, CRLF.
  static func chunk(_ data: Data) -> Data {
    var chunk = Data((String(data.count, radix: 16) + "\r\n").utf8)
    chunk.append(data)
    chunk.append(contentsOf: [0x0D, 0x0A])
    return chunk
  }

  /// Whether a response with `status` has a body and framing (not 1xx, 204 or 304).
  static func statusAllowsBody(_ status: Int) -> Bool {
    !(100..<200).contains(status) && status != 204 && status != 304
  }

  static func reasonPhrase(_ status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 101: "Switching Protocols"
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 204: "No Content"
    case 206: "Partial Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 303: "See Other"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 409: "Conflict"
    case 410: "Gone"
    case 413: "Content Too Large"
    case 415: "Unsupported Media Type"
    case 422: "Unprocessable Content"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: "Status \(status)"
    }
  }
}
