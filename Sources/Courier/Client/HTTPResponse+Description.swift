import Foundation

extension HTTPResponse: CustomStringConvertible {
  /// Status, URL, headers and body size, with credentials redacted — the values the
  /// request carried too, wherever a header echoes them: safe to log.
  public var description: String {
    var text =
      "\(HTTPError.statusText(status)) from \(credentials.describe(url)), \(body.count) bytes"
    for field in headers {
      text += "\n\(field.name): " + credentials.describe(headerValue: field.value, name: field.name)
    }
    return text
  }
}

extension DecodedResponse: CustomStringConvertible {
  /// The decoded value and the response it came from, with credentials redacted: the
  /// request's credential values are scrubbed from the value's text too (an API that echoes
  /// its caller's key), while ``value`` itself is left as decoded.
  public var description: String {
    "\(response.credentials.scrub(String(describing: value)))\n\(response.description)"
  }
}
