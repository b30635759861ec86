import Foundation

extension HTTPResponse: CustomStringConvertible {
  /// Status, URL, headers and body size, with credentials redacted: safe to log.
  public var description: String {
    var text =
      "\(HTTPError.statusText(status)) from \(Redaction.url(url, extra: redactedNames)), "
      + "\(body.count) bytes"
    for field in headers {
      text +=
        "\n\(field.name): "
        + Redaction.headerValue(field.value, name: field.name, extra: redactedNames)
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
