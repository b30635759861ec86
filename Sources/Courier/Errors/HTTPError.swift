import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one error Courier throws. Switch over it to handle each way a request can fail.
///
/// ```swift
/// do {
///   let movie = try await client.send(MovieApi.details(id: 42))
/// } catch .unacceptableStatus(let response) where response.status == 404 {
///   print("no such movie")
/// } catch {
///   print(error)   // a description a person can act on, with credentials redacted
/// }
/// ```
public enum HTTPError: Error, Sendable, Equatable {
  /// The request could not be built, so nothing was sent: a path that cannot form a URL,
  /// a header with CR or LF, a body that cannot be encoded. The reason names the problem.
  case invalidRequest(reason: String)
  /// The transport failed: connection refused or lost, DNS, TLS, a malformed response.
  case transport(URLError)
  /// The request took longer than its timeout.
  case timedOut
  /// The calling task was cancelled; the request was cancelled with it.
  case cancelled
  /// The server answered with a status the endpoint does not accept. The response carries
  /// status, headers and body, so an API's error payload can be decoded (``decodeBody(as:using:)``).
  case unacceptableStatus(HTTPResponse)
  /// The body could not be decoded into the response type. The reason names the failing
  /// key or path, with the request's credential values scrubbed (a body may echo one as a
  /// key); the response is kept.
  case decodingFailed(reason: String, response: HTTPResponse)
  /// The response body was larger than the client's `maximumResponseBytes`.
  case responseTooLarge(limit: Int)

  /// The response involved, for ``unacceptableStatus(_:)`` and
  /// ``decodingFailed(reason:response:)``.
  public var response: HTTPResponse? {
    switch self {
    case .unacceptableStatus(let response), .decodingFailed(_, let response): response
    default: nil
    }
  }

  /// The status code of the response involved, if there was one.
  public var status: Int? { response?.status }

  /// The response body decoded as JSON into `type` (an API's error payload, typically), or
  /// `nil` when there is no response or it does not decode.
  ///
  /// Pass the client's decoder (`client.configuration.decoder`) when the payload relies on
  /// its strategies, such as `.convertFromSnakeCase`; the default is a plain `JSONDecoder`.
  ///
  /// ```swift
  /// catch {
  ///   if let apiError = error.decodeBody(as: TMDBError.self) { print(apiError.statusMessage) }
  /// }
  /// ```
  public func decodeBody<T: Decodable>(as type: T.Type, using decoder: JSONDecoder = JSONDecoder())
    -> T?
  {
    guard let body = response?.body, !body.isEmpty else { return nil }
    return try? decoder.decode(type, from: body)
  }

  /// The error for a failure reported by URLSession.
  init(urlError: URLError) {
    switch urlError.code {
    case .timedOut: self = .timedOut
    case .cancelled: self = .cancelled
    case .unknown:
      self = .transport(Self.named(urlError))
    // It reports a connection closed before a byte of the answer as a bad response; it is
    // the empty reply CurlTransport reports, which may pass.
    case .badServerResponse where urlError.localizedDescription == "Empty reply from server":
      self = .transport(URLError(.zeroByteResource, userInfo: urlError.userInfo))
    default: self = .transport(urlError)
    }
  }

  /// `error`, an `unknown` one, with the code CurlTransport gives the same failure when its
  /// words are libcurl's and say which, and those words as its reason (its description shows
  /// them; on Linux, for every `unknown` failure); otherwise `error` itself.
  ///
  /// FoundationNetworking (Linux) reports many of libcurl's failures as `unknown`, in
  /// libcurl's words: a head over libcurl's 300 KiB limit or a malformed chunked body (the
  /// server sent what it must not: `badServerResponse`), a body cut short
  /// (`networkConnectionLost`, which ``RetryPolicy`` retries), a certificate the check refused
  /// (`serverCertificateUntrusted`: its authority unknown, its dates, another host's name),
  /// a body whose content coding could not be undone (`cannotDecodeContentData`), and a TLS
  /// handshake that failed (`secureConnectionFailed`).
  /// Elsewhere (Apple's URLSession, a `URLProtocol`, a stub) an `unknown` error keeps its
  /// code and words, whatever they say.
  static func named(_ error: URLError) -> URLError {
    #if canImport(FoundationNetworking)
      libcurlNamed(error)
    #else
      error
    #endif
  }

  /// ``named(_:)`` on Linux.
  private static func libcurlNamed(_ error: URLError) -> URLError {
    guard let words = error.userInfo[NSLocalizedDescriptionKey] as? String else { return error }
    let code: URLError.Code
    if words.hasPrefix("Too large response headers") || words.contains("chunked-encod") {
      code = .badServerResponse
    } else if words.hasPrefix("transfer closed with") {
      code = .networkConnectionLost
    } else if words.hasPrefix("SSL certificate problem:")
      || words.hasPrefix("SSL: no alternative certificate subject name")
      || words.hasPrefix("SSL: certificate subject name")
    {
      code = .serverCertificateUntrusted
    } else if words.hasPrefix("Error while processing content unencoding") {
      code = .cannotDecodeContentData  // a corrupt gzip or deflate body
    } else if words.hasPrefix("OpenSSL/") || words.hasPrefix("OpenSSL SSL_connect") {
      // The handshake's failure (CURLE_SSL_CONNECT_ERROR); a TLS read or write failing
      // after it (SSL_read, SSL_write) is a lost connection, which it reports as such.
      code = .secureConnectionFailed
    } else {
      code = .unknown  // still libcurl's words, which say more than "unknown"
    }
    var userInfo = error.userInfo
    userInfo[reasonKey] = Redaction.libcurlWords(words)
    return URLError(code, userInfo: userInfo)
  }

  /// The error for anything URLSession's completion handler reports.
  init(transportFailure error: any Error) {
    if let urlError = error as? URLError {
      self.init(urlError: urlError)
      return
    }
    let nsError = error as NSError
    if nsError.domain == NSURLErrorDomain {
      self.init(
        urlError: URLError(
          URLError.Code(rawValue: nsError.code) ?? .unknown, userInfo: nsError.userInfo))
    } else {
      self = .transport(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: nsError]))
    }
  }
}
