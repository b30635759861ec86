#if Logging || Metrics || Tracing
  extension HTTPError {
    /// The case's name, as the integrations report a failure's `error.type` (OpenTelemetry's
    /// attribute, whose values each instrumentation names and documents): `invalidRequest`,
    /// `transport`, `timedOut`, `cancelled`, `unacceptableStatus`, `decodingFailed`,
    /// `responseTooLarge`. Few values, never the details a case carries.
    var typeName: String {
      switch self {
      case .invalidRequest: "invalidRequest"
      case .transport: "transport"
      case .timedOut: "timedOut"
      case .cancelled: "cancelled"
      case .unacceptableStatus: "unacceptableStatus"
      case .decodingFailed: "decodingFailed"
      case .responseTooLarge: "responseTooLarge"
      }
    }
  }
#endif
