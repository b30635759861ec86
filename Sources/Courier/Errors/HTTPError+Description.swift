import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPError: CustomStringConvertible {
  /// What went wrong, in words a person can act on. Credentials in URLs are redacted and
  /// header values are never included.
  public var description: String {
    switch self {
    case .invalidRequest(let reason):
      return "Invalid request: \(reason). Nothing was sent."
    case .transport(let error):
      let url = (error.userInfo[NSURLErrorFailingURLErrorKey] as? URL)
      let target = url.map { " for \(Redaction.url($0))" } ?? ""
      return
        "Transport error\(target): \(Self.name(of: error.code)) (URLError \(error.code.rawValue))."
    case .timedOut:
      return "The request timed out."
    case .cancelled:
      return "The request was cancelled."
    case .unacceptableStatus(let response):
      return "Unacceptable status \(Self.statusText(response.status)) from "
        + "\(Redaction.url(response.url, extra: response.redactedNames))"
        + "\(Self.bodyExcerpt(response.body))."
    case .decodingFailed(let reason, let response):
      return "Could not decode the \(response.status) response from "
        + "\(Redaction.url(response.url, extra: response.redactedNames)): \(reason)."
    case .responseTooLarge(let limit):
      return "The response body exceeded the limit of \(limit) bytes "
        + "(raise Configuration.maximumResponseBytes to accept larger bodies)."
    }
  }

  static func statusText(_ status: Int) -> String {
    "\(status) \(HTTPURLResponse.localizedString(forStatusCode: status).capitalized)"
  }

  /// The start of a text body, for error messages. A character cut in two at the end shows
  /// as U+FFFD; a binary body (NUL bytes, invalid UTF-8) shows nothing.
  static func bodyExcerpt(_ body: Data) -> String {
    guard !body.isEmpty else { return "" }
    let text = String(decoding: body.prefix(200), as: UTF8.self)
    let replaced = text.unicodeScalars.filter { $0 == "\u{FFFD}" }.count
    guard !text.unicodeScalars.contains("\u{0}"), replaced <= 1 else { return "" }
    let flat = text.replacingOccurrences(of: "\n", with: " ")
    return ": " + flat + (body.count > 200 ? "…" : "")
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
    case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
      "TLS handshake failed"
    case .httpTooManyRedirects: "too many redirects"
    case .dnsLookupFailed: "DNS lookup failed"
    case .unknown: "unknown error (on Linux also a truncated body or a TLS failure)"
    default: "URL loading failed"
    }
  }
}

extension HTTPError: LocalizedError {
  /// The same text as ``description``, so `localizedDescription` reads well too.
  public var errorDescription: String? { description }
}
