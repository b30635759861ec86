import Foundation

extension HTTPResponse: CustomStringConvertible {
  /// Status, URL, headers and body size, with credentials redacted: safe to log.
  public var description: String {
    var text = "\(HTTPError.statusText(status)) from \(Redaction.url(url)), \(body.count) bytes"
    if !headers.isEmpty {
      text += "\n" + headers.description
    }
    return text
  }
}

extension DecodedResponse: CustomStringConvertible {
  /// The decoded value and the response it came from, with credentials redacted.
  public var description: String {
    "\(value)\n\(response.description)"
  }
}
