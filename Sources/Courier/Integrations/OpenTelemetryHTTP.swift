#if Metrics || Tracing
  /// What OpenTelemetry's semantic conventions for HTTP clients fix that both the `Metrics` and
  /// the `Tracing` trait report: the methods named as they are, and a URL's `server.port`.
  enum OpenTelemetryHTTP {
    /// The methods of RFC 9110, `PATCH` (RFC 5789) and `QUERY`: OpenTelemetry's known methods.
    /// Any other is reported as `_OTHER`, so that an attribute's values stay few.
    static let knownMethods: Set<HTTPMethod> = [
      "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE", "QUERY",
    ]

    /// The `server.port` of a URL with `scheme` and `port`: its own, or its scheme's when it
    /// names none.
    static func serverPort(scheme: String?, port: Int?) -> Int? {
      port ?? defaultPorts[scheme?.lowercased() ?? ""]
    }

    /// The port of a URL that names none.
    private static let defaultPorts = ["http": 80, "ws": 80, "https": 443, "wss": 443]
  }
#endif
