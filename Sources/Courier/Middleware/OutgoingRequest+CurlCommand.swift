import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension OutgoingRequest {
  /// The request as a `curl` command to paste into a terminal, with credentials shown as
  /// `<redacted>`: `Authorization`, `Cookie` and other credential-looking headers and query
  /// items, plus the names in `redacting`.
  ///
  /// ```
  /// curl -X POST 'https://api.themoviedb.org/3/movie/550/rating?api_key=<redacted>' \
  ///   -H 'Authorization: <redacted>' \
  ///   -H 'Content-Type: application/json' \
  ///   --data-binary '{"value":8.5}'
  /// ```
  ///
  /// A request to a server on a Unix domain socket (`URL(unixSocketPath:)`) is given to curl
  /// as it takes one: `curl --unix-socket '/var/run/docker.sock' -X GET 'http://localhost/…'`.
  public func curlCommand(redacting names: Set<String> = []) -> String {
    let extra = Set(names.map { $0.lowercased() }).union(credentialNames)
    // curl knows no http+unix: it is given the socket, and the URL sent over it.
    let unix = url.flatMap(UnixSocketURL.init)
    let socket = unix.map { "--unix-socket \(Self.quoted($0.socketPath)) " } ?? ""
    let target = Self.quoted(Redaction.url(unix?.httpURL ?? url, extra: extra))
    var lines = ["curl \(socket)-X \(method.rawValue) \(target)"]
    for field in headers {
      let value = Redaction.headerValue(field.value, name: field.name, extra: extra)
      lines.append("-H \(Self.quoted("\(field.name): \(value)"))")
    }
    if let file = body?.file {
      lines.append("--data-binary \(Self.quoted("@" + file.path))")
    } else if let body, body.data == nil {
      lines.append(
        "--data-binary @body.bin  # a streamed body of \(body.length.map { "\($0) bytes" } ?? "unknown length")"
      )
    } else if let body = body?.data, !body.isEmpty {
      if let text = Redaction.body(body, extra: extra) {
        let secrets = Redaction.secrets(in: urlRequest, extra: extra)
        lines.append("--data-binary \(Self.quoted(Redaction.scrub(text, secrets: secrets)))")
      } else {
        lines.append("--data-binary @body.bin  # \(body.count) bytes of binary data")
      }
    }
    return lines.joined(separator: " \\\n  ")
  }

  /// `text` in single quotes for a POSIX shell.
  private static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }
}

extension HTTPClient {
  /// The `curl` command for an endpoint, as this client would send it before middleware,
  /// with credentials redacted (see ``OutgoingRequest/curlCommand(redacting:)``), the
  /// client's `redactedNames` included.
  public nonisolated func curlCommand<E: Endpoint>(
    for endpoint: E, redacting names: Set<String> = []
  )
    throws(HTTPError) -> String
  {
    let built = try builder.request(for: endpoint)
    var request = OutgoingRequest(
      urlRequest: built.head, body: built.body, options: endpoint.options)
    request.credentialNames = redactedNames
    return request.curlCommand(redacting: names)
  }
}
