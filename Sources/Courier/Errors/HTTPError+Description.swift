import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPError: CustomStringConvertible {
  /// What went wrong, in words a person can act on. Credentials in URLs are redacted,
  /// header values are never included, and the credential values the request carried are
  /// scrubbed from the body excerpt and the decoding failure (a server that echoes an API
  /// key in its error body does not put it here).
  public var description: String {
    switch self {
    case .invalidRequest(let reason):
      return "Invalid request: \(reason). Nothing was sent."
    case .transport(let error):
      let url = (error.userInfo[NSURLErrorFailingURLErrorKey] as? URL)
      let target = url.map { " for \(Redaction.url($0))" } ?? ""
      let reason = (error.userInfo[Self.reasonKey] as? String).map { ": \($0)" } ?? ""
      return "Transport error\(target): \(Self.name(of: error.code)) "
        + "(URLError \(error.code.rawValue))\(reason)."
    case .timedOut:
      return "The request timed out."
    case .cancelled:
      return "The request was cancelled."
    case .unacceptableStatus(let response):
      let credentials = response.credentials
      return "Unacceptable status \(Self.statusText(response.status)) from "
        + "\(credentials.describe(response.url))"
        + "\(Self.bodyExcerpt(response.body, scrubbing: credentials))."
    case .decodingFailed(let reason, let response):
      let credentials = response.credentials
      return "Could not decode the \(response.status) response from "
        + "\(credentials.describe(response.url)): \(credentials.scrub(reason))."
    case .responseTooLarge(let limit):
      return "The response body exceeded the limit of \(limit) bytes "
        + "(raise Configuration.maximumResponseBytes to accept larger bodies)."
    }
  }

  static func statusText(_ status: Int) -> String {
    "\(status) \(HTTPURLResponse.localizedString(forStatusCode: status).capitalized)"
  }

  /// The start of a text body, for error messages, as the credential rule shows a body
  /// (``Redaction/body(_:extra:)``: its credential fields redacted, as in a log line), with
  /// the request's credential values scrubbed before it is cut (so no part of one survives).
  /// A character cut in two at the end shows as U+FFFD; a binary body (NUL bytes, invalid
  /// UTF-8) shows nothing.
  static func bodyExcerpt(_ body: Data, scrubbing credentials: Credentials = Credentials())
    -> String
  {
    let shown = 200
    guard !body.isEmpty else { return "" }
    let text = String(decoding: body.prefix(shown), as: UTF8.self)
    let replaced = text.unicodeScalars.filter { $0 == "\u{FFFD}" }.count
    guard !text.unicodeScalars.contains("\u{0}"), replaced <= 1 else { return "" }
    // Read whole when it is an error body's kept start at most (JSON is read as a whole);
    // otherwise with some bytes past the cut, so that a secret straddling it goes whole.
    let read = body.count <= Exchange.errorBodyLimit ? body : body.prefix(shown + 4096)
    let shownText =
      Redaction.body(read, extra: credentials.names) ?? String(decoding: read, as: UTF8.self)
    let scrubbed = credentials.scrub(shownText)
    let whole = body.count <= shown
    let flat = String(whole ? Substring(scrubbed) : scrubbed.prefix(shown))
      .replacingOccurrences(of: "\n", with: " ")
    return ": " + flat + (whole ? "" : "…")
  }

  static func name(of code: URLError.Code) -> String {
    switch code {
    case .cannotConnectToHost: "cannot connect to host (connection refused?)"
    case .cannotFindHost: "cannot find host"
    case .networkConnectionLost: "network connection lost"
    case .notConnectedToInternet: "not connected to the internet"
    case .badServerResponse: "bad server response"
    case .zeroByteResource: "the server sent an empty reply"
    case .badURL: "bad URL"
    case .unsupportedURL: "unsupported URL"
    case .cannotDecodeContentData: "the body's content coding could not be undone"
    case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
      "TLS handshake failed"
    case .clientCertificateRejected: "the client certificate could not be used, or was refused"
    case .clientCertificateRequired: "the server asks for a client certificate"
    case .httpTooManyRedirects: "too many redirects"
    case .dnsLookupFailed: "DNS lookup failed"
    case .userAuthenticationRequired: "authentication required"
    case .resourceUnavailable: "resource unavailable"
    case .unknown: "unknown error"
    default: "URL loading failed"
    }
  }
}

extension HTTPError: LocalizedError {
  /// The same text as ``description``, so `localizedDescription` reads well too.
  public var errorDescription: String? { description }
}

extension HTTPError {
  /// The `URLError` user-info key under which Courier writes the reason of a transport
  /// error it found itself (a range answer that does not fit, a short download), shown in
  /// the error's description.
  static let reasonKey = "CourierReason"

  /// A ``transport(_:)`` error of `code` that Courier found itself, for `reason`, in the
  /// answer from `url` when given.
  static func transport(_ code: URLError.Code, reason: String, url: URL? = nil) -> HTTPError {
    var info: [String: Any] = [NSLocalizedDescriptionKey: reason, reasonKey: reason]
    if let url { info[NSURLErrorFailingURLErrorKey] = url }
    return .transport(URLError(code, userInfo: info))
  }
}
