import Foundation

/// The body of a request, and the `Content-Type` it implies.
///
/// ```swift
/// var body: RequestBody? { .json(Rating(value: 8.5)) }
/// var body: RequestBody? { .form(["username": name, "password": password]) }
/// var body: RequestBody? { .data(png, contentType: "image/png") }
/// var body: RequestBody? { .multipart(form) }
/// var body: RequestBody? { .file(videoURL, contentType: "video/mp4") }
/// var body: RequestBody? { .stream(recorder.chunks, contentType: "audio/aac") }
/// ```
///
/// `.file` bodies and multipart forms with file parts are read from disk as they are sent,
/// never read into memory whole, with a `Content-Length` computed when the request is built;
/// `.stream` bodies are sent as they are produced.
///
/// A body that cannot be encoded (a `Double.nan` in JSON, say) fails the request with
/// ``HTTPError/invalidRequest(reason:)`` before anything is sent.
public struct RequestBody: Sendable {
  enum Content: Sendable {
    case json(any Encodable & Sendable, encoder: JSONEncoder?)
    case form(Query)
    case data(Data, contentType: String)
    case multipart(MultipartForm)
    case file(URL, contentType: String)
    case stream(TransportRequestBody, contentType: String)
  }

  let content: Content

  /// A JSON body encoded with `encoder`, or with the client's configured encoder when `nil`.
  /// `Content-Type: application/json`.
  public static func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil)
    -> RequestBody
  {
    RequestBody(content: .json(value, encoder: encoder))
  }

  /// An `application/x-www-form-urlencoded` body, encoded with the same rules as queries.
  public static func form(_ fields: Query) -> RequestBody {
    RequestBody(content: .form(fields))
  }

  /// A `multipart/form-data` body: text fields and file parts, the files read as the request
  /// is sent (see ``MultipartForm``).
  public static func multipart(_ form: MultipartForm) -> RequestBody {
    RequestBody(content: .multipart(form))
  }

  /// Raw bytes sent as they are, with the given `Content-Type`.
  public static func data(_ data: Data, contentType: String = "application/octet-stream")
    -> RequestBody
  {
    RequestBody(content: .data(data, contentType: contentType))
  }

  /// The contents of a file on disk, streamed as the request is sent (its size, taken when
  /// the request is built, is sent as `Content-Length`; a symbolic link is followed to its
  /// file). A file that cannot be read, or a directory, fails the request with
  /// ``HTTPError/invalidRequest(reason:)``, and nothing is sent; one whose
  /// size has changed by the time it is read for sending fails it with
  /// `HTTPError.transport(URLError(.requestBodyStreamExhausted))`.
  public static func file(_ url: URL, contentType: String = "application/octet-stream")
    -> RequestBody
  {
    RequestBody(content: .file(url, contentType: contentType))
  }

  /// A body sent as `chunks` produces it, each chunk when the transport has room for it
  /// (back-pressure), with the given `Content-Type`: a live recording, a body generated
  /// while the answer is read, an upload from another stream. `length` is the total when
  /// known (sent as `Content-Length`); without it an HTTP/1.1 body is sent chunked. A
  /// sequence that ends short of `length` or runs past it fails the request with
  /// `HTTPError.transport(URLError(.requestBodyStreamExhausted))`, never cut or left waiting.
  /// One that throws fails it the same way at once, with the sequence's own error under the
  /// `URLError`'s `NSUnderlyingErrorKey` and named in the error's description.
  ///
  /// The sequence is read once, so the request cannot be sent again once it has started: a
  /// ``RetryPolicy`` does not retry it (the failure is thrown as it came), and a 307 or 308
  /// redirect fails with `HTTPError.transport(URLError(.requestBodyStreamExhausted))`. When
  /// the chunks can be produced again, use ``stream(length:contentType:_:)``.
  ///
  /// ``CurlTransport`` and ``URLSessionTransport`` on Apple platforms send the chunks as they
  /// come, and the response can be read while the body is still being sent; on Linux,
  /// ``URLSessionTransport`` gathers the body into a temporary file first (<doc:PlatformNotes>
  /// says why).
  public static func stream<Chunks: AsyncSequence & Sendable>(
    _ chunks: Chunks, length: Int64? = nil, contentType: String = "application/octet-stream"
  ) -> RequestBody where Chunks.Element: DataProtocol {
    RequestBody(content: .stream(.stream(chunks, length: length), contentType: contentType))
  }

  /// A body sent as the sequence `makeChunks` returns produces it, as
  /// ``stream(_:length:contentType:)`` does, except that `makeChunks` is called afresh for
  /// each sending, so retries and 307/308 redirects can send the body again.
  public static func stream<Chunks: AsyncSequence & Sendable>(
    length: Int64? = nil, contentType: String = "application/octet-stream",
    _ makeChunks: @escaping @Sendable () -> Chunks
  ) -> RequestBody where Chunks.Element: DataProtocol {
    let source = TransportRequestBody.stream(length: length) { ChunkPump.stream(of: makeChunks()) }
    return RequestBody(content: .stream(source, contentType: contentType))
  }

  /// The media type this body is sent as.
  public var contentType: String {
    switch content {
    case .json: "application/json"
    case .form: "application/x-www-form-urlencoded"
    case .data(_, let contentType), .file(_, let contentType), .stream(_, let contentType):
      contentType
    case .multipart(let form): form.contentType
    }
  }

  /// The encoded body, using the client's defaults where the body names none: bytes in
  /// memory, or a source streamed from disk.
  func encoded(encoder defaultEncoder: JSONEncoder, queryEncoding: QueryEncoding)
    throws(HTTPError) -> TransportRequestBody
  {
    switch content {
    case .multipart(let form):
      return try form.encoded()
    case .file(let url, _):
      return TransportRequestBody(segments: [
        try TransportRequestBody.file(url, describedAs: "the body file")
      ])
    case .stream(let source, _):
      return source
    default:
      return TransportRequestBody(
        segments: [
          .data(try encodedInMemory(encoder: defaultEncoder, queryEncoding: queryEncoding))
        ])
    }
  }

  private func encodedInMemory(encoder defaultEncoder: JSONEncoder, queryEncoding: QueryEncoding)
    throws(HTTPError) -> Data
  {
    switch content {
    case .json(let value, let encoder):
      do {
        return try (encoder ?? defaultEncoder).encode(value)
      } catch {
        throw .invalidRequest(
          reason: "the JSON body could not be encoded: \(EncodingFailure.describe(error))")
      }
    case .form(let fields):
      try RequestBuilder.refuseNonFinite(fields, in: "form body")
      return Data(queryEncoding.encode(fields).utf8)
    case .data(let data, _):
      return data
    case .multipart, .file, .stream:
      return Data()  // streamed: see encoded(encoder:queryEncoding:)
    }
  }
}

/// Readable text for an `EncodingError`, naming the path that failed.
enum EncodingFailure {
  static func describe(_ error: any Error) -> String {
    guard let error = error as? EncodingError else { return String(describing: error) }
    switch error {
    case .invalidValue(let value, let context):
      return "invalid value \(value) at \(CodingPathText.describe(context.codingPath))"
        + (context.debugDescription.isEmpty ? "" : " (\(context.debugDescription))")
    @unknown default:
      return String(describing: error)
    }
  }
}

/// A coding path as text: `results[3].title`, or `the top level`.
enum CodingPathText {
  static func describe(_ path: [any CodingKey]) -> String {
    guard !path.isEmpty else { return "the top level" }
    var text = ""
    for key in path {
      if let index = key.intValue {
        text += "[\(index)]"
      } else {
        text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
      }
    }
    return text
  }
}
