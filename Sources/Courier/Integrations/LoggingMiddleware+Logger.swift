#if Logging
  import Logging

  extension LoggingMiddleware {
    /// Creates a logger writing each line to swift-log's `logger` (with the `Logging` trait),
    /// with what the line is about as metadata: `courier.request.id`, `http.request.method`,
    /// `url.full` (redacted) and `courier.attempt`; on an answer also
    /// `http.response.status_code` and `courier.duration_ms`; on a failure `error.type` (the
    /// ``HTTPError`` case: `timedOut`, `unacceptableStatus`…) and the duration.
    ///
    /// ```swift
    /// let logger = Logger(label: "api.client")
    /// configuration.middleware = [LoggingMiddleware(logger: logger), RetryPolicy()]
    /// ```
    ///
    /// The request going out is logged at `.debug`, an answer at `.info`, an answer with a
    /// status of 400 or more at `.warning`, and a failure at `.error` (a cancellation at
    /// `.debug`), so the logger's `logLevel` chooses which lines are written. Credentials never
    /// appear, in the message or the metadata: they go through the rule every log line, curl
    /// command and error description of Courier follows. The request id is the client's number
    /// for the request, the `id` of its ``HTTPEvent``s, when the client has an
    /// ``HTTPClient/Configuration/observer``; otherwise this middleware counts the requests it
    /// sees, from 1. Setting ``sink`` afterwards replaces the logger.
    public init(
      logger: Logger, level: Level = .basic, redacting names: Set<String> = [],
      bodyLimit: Int = 1024
    ) {
      self.init(level: level, redacting: names, bodyLimit: bodyLimit) { severity, line in
        let metadata = LoggingMiddleware.fields?.metadata
        logger.log(level: Logger.Level(severity), "\(line)", metadata: metadata)
      }
      requestNumbers = Locked(0)
    }
  }

  extension LoggingMiddleware.Fields {
    /// The fields as swift-log metadata, named after OpenTelemetry's attributes where one fits.
    var metadata: Logger.Metadata {
      var metadata: Logger.Metadata = [
        "courier.request.id": "\(requestID)",
        "http.request.method": "\(method.rawValue)",
        "url.full": "\(url)",
        "courier.attempt": "\(attempt)",
      ]
      if let status { metadata["http.response.status_code"] = "\(status)" }
      if let duration {
        // To the microsecond, which prints without an exponent.
        metadata["courier.duration_ms"] = "\((duration.seconds * 1_000_000).rounded() / 1000)"
      }
      if let error { metadata["error.type"] = "\(error.typeName)" }
      return metadata
    }
  }

  extension Logger.Level {
    /// The level swift-log names as the middleware's severity.
    init(_ severity: LoggingMiddleware.Severity) {
      switch severity {
      case .debug: self = .debug
      case .info: self = .info
      case .warning: self = .warning
      case .error: self = .error
      }
    }
  }
#endif
