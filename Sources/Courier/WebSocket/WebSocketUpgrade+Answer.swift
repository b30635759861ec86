import Foundation

extension WebSocketUpgrade {
  /// What an answer read so far amounts to.
  enum Answer {
    /// More bytes are needed.
    case incomplete
    /// The server accepted: its `101` answer, the subprotocol it chose, and the bytes after
    /// the head (the first frames).
    case accepted(HTTPResponse, subprotocol: String?, rest: [UInt8])
  }

  /// Reads the server's answer to the upgrade as its bytes arrive, each byte looked at once:
  /// a server that dribbles its answer a byte at a time costs no more than one that sends it
  /// whole. A `101` that passes the handshake's checks is accepted; any other answer fails
  /// with ``HTTPError/unacceptableStatus(_:)`` and the start of its body, once that is in.
  struct AnswerReader {
    let upgrade: WebSocketUpgrade
    /// The head's bytes so far.
    private var head: [UInt8] = []
    /// How much of `head` has been searched for its end.
    private var searched = 0
    /// A refusal, while its body arrives.
    private var refusal: (response: HTTPResponse, body: RefusalBody)?

    init(_ upgrade: WebSocketUpgrade) {
      self.upgrade = upgrade
    }

    /// Takes the next bytes read (`nil` once the connection has ended).
    mutating func read(_ bytes: Data?) throws(HTTPError) -> Answer {
      if refusal != nil { return try readRefusal(bytes) }
      guard let bytes else {
        throw .transport(
          .badServerResponse,
          reason: "WebSocket handshake: the server closed the connection without an answer")
      }
      head += bytes
      // From three bytes back: the blank line may span two reads.
      guard let end = WebSocketUpgrade.endOfHead(head, from: Swift.max(0, searched - 3)) else {
        searched = head.count
        guard head.count < 64 * 1024 else {
          throw .transport(
            .badServerResponse, reason: "WebSocket handshake: the answer's head is over 64 KiB")
        }
        return .incomplete
      }
      var response = try WebSocketUpgrade.parseHead(head[..<end])
      response.url = upgrade.url
      let rest = Array(head[end...])
      head = []
      guard response.status == 101 else {
        refusal = (response, try RefusalBody(of: response, limit: upgrade.limit))
        return try readRefusal(Data(rest))
      }
      let subprotocol = try upgrade.handshake.validate(response.headers)
      return .accepted(response, subprotocol: subprotocol, rest: rest)
    }

    /// Reads the refusal's body on: throws the refusal once it is in.
    private mutating func readRefusal(_ bytes: Data?) throws(HTTPError) -> Answer {
      guard var (response, body) = refusal else { return .incomplete }
      let whole = try body.read(bytes)
      refusal = (response, body)
      guard let whole else { return .incomplete }
      response.body = whole
      throw .unacceptableStatus(response)
    }
  }

  /// A refusal's body as it arrives: none for 1xx, 204 and 304; else by its
  /// `Content-Length`, or chunked (its data, by the one chunked decoder, ``ChunkedDecoder``),
  /// or to the connection's end. At most `limit` bytes are kept, and what is read for them is
  /// bounded too (a chunked body's framing, at twice the limit). A length that cannot frame
  /// the body, or chunked framing that is hostile, fails with `badServerResponse`.
  struct RefusalBody {
    private enum Framing {
      case length(Int)
      case chunked(ChunkedDecoder)
      case toEnd
    }

    private var framing: Framing
    private let limit: Int
    private var body = Data()
    /// The body's bytes read, framing included.
    private var read = 0

    init(of response: HTTPResponse, limit: Int) throws(HTTPError) {
      self.limit = limit
      if response.status < 200 || response.status == 204 || response.status == 304 {
        framing = .length(0)
      } else if response.headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
        framing = .chunked(ChunkedDecoder())
      } else {
        // The transfers' rule: a length that is not a number, or lengths that disagree,
        // cannot frame the body.
        let values = response.headers.values(for: "Content-Length")
        guard let value = ResponseHeadReader.contentLength(values) else {
          throw .transport(
            .badServerResponse, reason: "WebSocket handshake: Content-Length \(values)")
        }
        framing = value.map { .length(Int(clamping: $0)) } ?? .toEnd
      }
    }

    /// Takes the next bytes of the body (`nil` once the connection has ended); returns the
    /// body (the start of it) once it is in, or all that is kept of it is.
    mutating func read(_ bytes: Data?) throws(HTTPError) -> Data? {
      let atEnd = bytes == nil
      let bytes = bytes ?? Data()
      read += bytes.count
      switch framing {
      case .length(let length):
        keep(bytes.prefix(Swift.max(0, length - (read - bytes.count))))
        if read >= length { return body }
      case .chunked(var decoder):
        let data = bytes.withUnsafeBytes { raw in
          Result { () throws(HTTPError) in try decoder.decode(raw) }
        }
        keep(try data.get())
        framing = .chunked(decoder)
        if decoder.isComplete || read >= 2 * limit { return body }
      case .toEnd:
        keep(bytes)
      }
      // All that is kept has come, or the connection has ended.
      return body.count >= limit || atEnd ? body : nil
    }

    private mutating func keep(_ bytes: Data) {
      body += bytes.prefix(limit - body.count)
    }
  }
}
