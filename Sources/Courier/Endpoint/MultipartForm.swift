import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and file parts, from memory or from
/// disk, framed with CRLF and a random boundary.
///
/// ```swift
/// var form = MultipartForm()
/// form.add(name: "title", value: "Heat")
/// form.add(name: "poster", filename: "heat.jpg", contentType: "image/jpeg", data: jpeg)
/// form.add(name: "trailer", fileURL: movieURL, contentType: "video/mp4")
/// let upload = Request<EmptyResponse>(method: .post, path: "uploads", body: .multipart(form))
/// ```
///
/// Names and filenames may hold quotes, line breaks and non-ASCII text: quotes and line
/// breaks are percent-escaped as browsers do (`"` → `%22`), and the rest is sent as UTF-8. A
/// part's content type is a header: one with CR, LF or another control character is an
/// ``HTTPError/invalidRequest(reason:)``, and nothing is sent; so is a part in memory that
/// holds the delimiter (a line break, `--` and the boundary), which only a boundary given to
/// ``init(boundary:)`` can meet. A file part that holds it fails the request as it is read
/// for sending, with `HTTPError.transport(URLError(.requestBodyStreamExhausted))`, the form
/// not sent whole (the server would read the file's text as parts).
/// The `Content-Length` is computed when the request is built, from the parts and the sizes
/// of the files, so the form is never sent chunked. File parts stay on disk: each file is
/// read 64 KiB at a time as the transport sends the form, never whole into memory, and not
/// copied (but ``URLSessionTransport`` on Linux copies the form into a temporary file first
/// and sends that; see <doc:PlatformNotes>). A file whose size has changed by the time it is
/// read for sending fails the request with
/// `HTTPError.transport(URLError(.requestBodyStreamExhausted))` rather than sending a body of
/// another length, and one that cannot be read then with `.transport(URLError(.cannotOpenFile))`;
/// one missing when the request is built is an ``HTTPError/invalidRequest(reason:)``, and
/// nothing is sent.
public struct MultipartForm: Sendable {
  /// One part of the form.
  public struct Part: Sendable {
    /// Where a part's bytes come from.
    public enum Content: Sendable {
      /// Bytes in memory.
      case data(Data)
      /// A file on disk, read as the request is sent.
      case file(URL)
    }

    /// The field name.
    public var name: String
    /// The file name, for file parts.
    public var filename: String?
    /// The part's media type, if any.
    public var contentType: String?
    /// The bytes.
    public var content: Content
  }

  /// The boundary between parts.
  public let boundary: String
  /// The parts in order.
  public private(set) var parts: [Part] = []

  /// An empty form with a random boundary (or `boundary`, for reproducible output).
  public init(boundary: String = MultipartForm.randomBoundary()) {
    self.boundary = boundary
  }

  /// A boundary that no content is likely to contain: `courier-` and 24 random characters.
  public static func randomBoundary() -> String {
    let characters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    return "courier-" + String((0..<24).map { _ in characters.randomElement()! })
  }

  /// The `Content-Type` header value, boundary included (quoted when it holds a character a
  /// token cannot, such as a space or `=`: RFC 2045 §5.1).
  public var contentType: String {
    let isToken = boundary.utf8.allSatisfy(HeaderValidation.isTokenByte)
    return "multipart/form-data; boundary=" + (isToken ? boundary : "\"\(boundary)\"")
  }

  /// Adds a text field.
  public mutating func add(name: String, value: String) {
    parts.append(
      Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8))))
  }

  /// Adds a file part from memory.
  public mutating func add(
    name: String, filename: String, contentType: String = "application/octet-stream", data: Data
  ) {
    parts.append(
      Part(name: name, filename: filename, contentType: contentType, content: .data(data)))
  }

  /// Adds a file part from disk; the filename defaults to the file's own name.
  public mutating func add(
    name: String, fileURL: URL, filename: String? = nil,
    contentType: String = "application/octet-stream"
  ) {
    parts.append(
      Part(
        name: name, filename: filename ?? fileURL.lastPathComponent, contentType: contentType,
        content: .file(fileURL)))
  }

  /// The encoded body: framing and in-memory parts joined, file parts left on disk.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` for a boundary RFC 2046 does not allow,
  ///   a part in memory that holds the boundary delimiter, a part content type with a control
  ///   character (CR, LF…), or a file that cannot be read.
  func encoded() throws(HTTPError) -> TransportRequestBody {
    guard (1...70).contains(boundary.utf8.count),
      boundary.utf8.allSatisfy({
        PercentEncoding.isUnreserved($0) || "'()+,/:=? ".utf8.contains($0)
      }),
      !boundary.hasSuffix(" ")
    else {
      throw .invalidRequest(
        reason: "the multipart boundary '\(boundary)' is not 1–70 allowed characters")
    }
    var segments: [TransportRequestBody.Segment] = []
    var body = Data()
    for part in parts {
      var head =
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(part.name))\""
      if let filename = part.filename { head += "; filename=\"\(Self.escape(filename))\"" }
      head += "\r\n"
      if let contentType = part.contentType {
        // A part's header is a header: CR or LF would add fields of the caller's text. (A
        // Character filter missed "\r\n", one Character, and let it through.)
        guard
          !contentType.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F })
        else {
          throw .invalidRequest(
            reason: "the content type of part '\(Self.escape(part.name))' contains CR, LF or "
              + "another control character")
        }
        head += "Content-Type: \(contentType)\r\n"
      }
      head += "\r\n"
      body.append(Data(head.utf8))
      // RFC 2046 §5.1.1: the delimiter must not occur in a part, or the part ends there and
      // the rest of its content is read as parts of the caller's text (only a fixed boundary
      // can meet that). A file is not read here: it is checked as it is sent.
      let delimiter = Data("\r\n--\(boundary)".utf8)
      switch part.content {
      case .data(let data):
        if data.starts(with: delimiter.dropFirst(2)) || data.range(of: delimiter) != nil {
          throw .invalidRequest(
            reason: "the content of part '\(Self.escape(part.name))' holds the boundary "
              + "delimiter '--\(boundary)' after a line break; use another boundary (the random "
              + "default never meets this)")
        }
        body.append(data)
      case .file(let url):
        segments.append(.data(body))
        segments.append(
          try TransportRequestBody.file(
            url, describedAs: "the file for part '\(part.name)'", delimiter: delimiter))
        body = Data()
      }
      body.append(Data("\r\n".utf8))
    }
    body.append(Data("--\(boundary)--\r\n".utf8))
    segments.append(.data(body))
    return TransportRequestBody(segments: segments)
  }

  /// A name or filename for a quoted header parameter: `"`, CR and LF percent-escaped, as
  /// the WHATWG form encoding does.
  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
      .replacingOccurrences(of: "\n", with: "%0A")
  }
}
