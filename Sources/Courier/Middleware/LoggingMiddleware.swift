import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Writes a line for each request and each response (or failure) to a sink you supply:
/// method, URL, status, duration, bytes and attempt; at higher levels the headers and the
/// start of the bodies too. Credentials never appear: credential-looking headers and query
/// items, the names you list, and every value they carry are shown as `<redacted>`,
/// wherever they occur in a line.
///
/// ```swift
/// configuration.middleware = [
///   RetryPolicy(), BearerAuthentication(provider: session),
///   LoggingMiddleware(level: .headers, redacting: ["X-Tenant"]) { print($0) },
/// ]
/// ```
///
/// Each line comes with a ``Severity`` when the sink takes two arguments: the request going out
/// is `.debug`, an answer `.info`, an answer with a status of 400 or more `.warning`, and a
/// failure `.error` (a cancellation `.debug`). The severities are named, and spelt, as
/// swift-log's `Logger.Level`, so logging through swift-log at the matching level is one line:
///
/// ```swift
/// LoggingMiddleware { severity, line in
///   logger.log(level: Logger.Level(rawValue: severity.rawValue) ?? .info, "\(line)")
/// }
/// ```
///
/// Through `os.Logger`: `{ logger.info("\($0, privacy: .public)") }` (the text is already
/// redacted).
public struct LoggingMiddleware: Middleware {
  /// How serious a line is, named and spelt as swift-log's `Logger.Level` cases.
  public enum Severity: String, Sendable, CaseIterable {
    /// The request going out.
    case debug
    /// An answer with a status below 400.
    case info
    /// An answer with a status of 400 or more.
    case warning
    /// A request that failed: a transport error, a timeout, a size limit passed.
    case error
  }

  /// How much to write.
  public enum Level: Int, Sendable, Comparable {
    /// Nothing.
    case off
    /// One line out and one line back.
    case basic
    /// Those lines and the headers.
    case headers
    /// Those lines, the headers, and the bodies up to `bodyLimit` bytes, the values of
    /// credential fields redacted in JSON, form and multipart form bodies.
    case bodies

    /// Whether `lhs` writes less than `rhs`.
    public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  /// How much to write.
  public var level: Level
  /// Extra header and query names whose values are credentials (compared lowercased).
  public var redactedNames: Set<String>
  /// The most body bytes written at `.bodies`, 1,024 by default; zero or less writes none.
  public var bodyLimit: Int
  /// Receives each line, with its severity.
  public var sink: @Sendable (Severity, String) -> Void
  /// Numbers the requests when a sink wants each line's ``fields`` (the `Logging` trait's
  /// swift-log sink) and the client reports no events, whose ids are used otherwise; `nil` when
  /// no sink wants them, and then none are made.
  var requestNumbers: Locked<UInt64>?

  /// What the line ``sink`` is being given is about, while the sink runs, when it wants to
  /// know (see ``requestNumbers``): the `Logging` trait's swift-log sink writes it as metadata.
  /// A sink set in its place simply does not read it.
  @TaskLocal static var fields: Fields?

  /// What a line is about, for a sink that keeps it apart from the text (swift-log's metadata):
  /// every value redacted as the line is.
  struct Fields: Sendable {
    /// The client's number for the request (its events' id) when it reports events; otherwise
    /// this middleware's count of requests.
    var requestID: UInt64
    var method: HTTPMethod
    /// The URL with credentials redacted.
    var url: String
    var attempt: Int
    var status: Int?
    var duration: Duration?
    var error: HTTPError?
  }

  /// Creates a logger writing each line, with its severity, to `sink`.
  public init(
    level: Level = .basic, redacting names: Set<String> = [], bodyLimit: Int = 1024,
    sink: @escaping @Sendable (Severity, String) -> Void
  ) {
    self.level = level
    self.redactedNames = Set(names.map { $0.lowercased() })
    self.bodyLimit = bodyLimit
    self.sink = sink
  }

  /// Creates a logger writing each line to `sink`, whatever its severity.
  public init(
    level: Level = .basic, redacting names: Set<String> = [], bodyLimit: Int = 1024,
    sink: @escaping @Sendable (String) -> Void
  ) {
    self.init(level: level, redacting: names, bodyLimit: bodyLimit) { _, line in sink(line) }
  }

  /// Logs the request, passes it on, and logs what came back.
  public func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    guard level > .off else { return try await next(request) }
    let redactedNames = self.redactedNames.union(request.credentialNames)
    let secrets = Credentials(
      names: redactedNames, request: request.urlRequest, held: request.heldCredentials,
      body: Credentials.readable(request.body)
    ).secrets
    let url = Redaction.url(request.url, extra: redactedNames)
    let target = "\(request.method) \(url)"
    var out = "→ \(target) (attempt \(request.attempt))"
    if level >= .headers { out += describe(request.headers, redacting: redactedNames) }
    if level >= .bodies { out += describe(request.body, redacting: redactedNames) }
    var fields = requestNumbers.map { _ in
      Fields(
        requestID: request.events?.request.id ?? nextRequestNumber(), method: request.method,
        url: Redaction.scrub(url, secrets: secrets), attempt: request.attempt)
    }
    write(.debug, Redaction.scrub(out, secrets: secrets), fields)

    let start = ContinuousClock.now
    do throws(HTTPError) {
      let response = try await next(request)
      let duration = ContinuousClock.now - start
      // The response counts the attempts once a retrying middleware outside this one has seen
      // it; inside one, the request knows which attempt this was.
      let attempt = max(request.attempt, response.attempt)
      // A streamed body has not arrived yet: the line is written at its head.
      let size = response.bodyStream == nil ? "\(response.body.count) bytes" : "body streamed"
      var back =
        "← \(response.status) \(target) \(Self.milliseconds(duration)), \(size)"
        + " (attempt \(attempt))"
      if level >= .headers { back += describe(response.headers, redacting: redactedNames) }
      if level >= .bodies { back += describe(response.body, redacting: redactedNames) }
      // Scrubbed of the request's credentials as it was sent too: what middleware after this
      // one and the client's cookie jar added.
      let sent = secrets + response.credentials.secrets
      fields?.attempt = attempt
      fields?.status = response.status
      fields?.duration = duration
      write(response.status >= 400 ? .warning : .info, Redaction.scrub(back, secrets: sent), fields)
      return response
    } catch {
      let duration = ContinuousClock.now - start
      let line = Redaction.scrub(
        "✕ \(target) failed after \(Self.milliseconds(duration)): \(error)", secrets: secrets)
      fields?.status = error.status
      fields?.duration = duration
      fields?.error = error
      write(error == .cancelled ? .debug : .error, line, fields)
      throw error
    }
  }

  /// Hands a line to ``sink``, with its fields bound for the sink's time when there are any.
  private func write(_ severity: Severity, _ line: String, _ fields: Fields?) {
    guard let fields else { return sink(severity, line) }
    Self.$fields.withValue(fields) { sink(severity, line) }
  }

  /// The next of this middleware's request numbers, from 1.
  private func nextRequestNumber() -> UInt64 {
    requestNumbers?.withLock { count in
      count += 1
      return count
    } ?? 0
  }

  private func describe(_ headers: HTTPHeaders, redacting names: Set<String>) -> String {
    headers.fields.map {
      "\n    \($0.name): \(Redaction.headerValue($0.value, name: $0.name, extra: names))"
    }.joined()
  }

  private func describe(_ body: TransportRequestBody?, redacting names: Set<String>) -> String {
    guard let body else { return "" }
    guard let data = body.data else {
      return
        "\n    (a body read as it is sent, \(body.length.map { "\($0) bytes" } ?? "of unknown length"))"
    }
    return describe(data, redacting: names)
  }

  private func describe(_ body: Data?, redacting names: Set<String>) -> String {
    guard let body, !body.isEmpty else { return "" }
    guard let text = Redaction.body(body, extra: names) else {
      return "\n    (\(body.count) bytes of binary data)"
    }
    let limit = max(0, bodyLimit)  // a negative limit shows nothing, as zero does (no trap)
    let cut = text.utf8.count > limit
    let shown = cut ? String(decoding: text.utf8.prefix(limit), as: UTF8.self) : text
    return "\n    " + shown + (cut ? "… (\(body.count) bytes)" : "")
  }

  private static func milliseconds(_ duration: Duration) -> String {
    String(format: "%.1f ms", duration.seconds * 1000)
  }
}
