import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A client for one HTTP API: it turns endpoints into requests, sends them through its
/// transport and decodes the answers.
///
/// ```swift
/// let client = HTTPClient(baseURL: URL(string: "https://api.themoviedb.org/3")!)
/// let page = try await client.send(MovieApi.popular(page: 1))   // a MoviePage
/// ```
///
/// Requests run concurrently: `send` is `nonisolated`, and encoding and decoding happen on
/// the caller's task, never on the actor's executor. Cancelling the calling task cancels
/// the request at once with ``HTTPError/cancelled``.
public actor HTTPClient {
  /// The URL that endpoint paths are joined to.
  public nonisolated let baseURL: URL
  /// What the client does for every request.
  public nonisolated let configuration: Configuration
  /// What sends the requests.
  public nonisolated let transport: any HTTPTransport

  private nonisolated let builder: RequestBuilder

  /// Creates a client.
  ///
  /// - Parameters:
  ///   - baseURL: An absolute `http` or `https` URL, possibly with a path (`…/3`). Query
  ///     items in it (`…/3?api_key=…`) are sent with every request, before the endpoint's.
  ///   - configuration: Headers, timeout, coders and limits for every request.
  ///   - transport: What sends requests; by default a ``URLSessionTransport`` with a session
  ///     of its own, invalidated when the client goes away.
  public init(
    baseURL: URL,
    configuration: Configuration = Configuration(),
    transport: (any HTTPTransport)? = nil
  ) {
    self.baseURL = baseURL
    self.configuration = configuration
    self.transport = transport ?? URLSessionTransport()
    self.builder = RequestBuilder(baseURL: baseURL, configuration: configuration)
  }

  // MARK: - Sending

  /// Sends the endpoint's request and returns its decoded answer.
  ///
  /// The result may be ignored, for endpoints that answer ``EmptyResponse``.
  ///
  /// - Throws: ``HTTPError``: `invalidRequest` (nothing was sent), `transport`, `timedOut`,
  ///   `cancelled`, `unacceptableStatus`, `decodingFailed` or `responseTooLarge`.
  @discardableResult
  public nonisolated func send<E: Endpoint>(_ endpoint: E) async throws(HTTPError) -> E.Response {
    try await response(for: endpoint).value
  }

  /// Sends the endpoint's request and returns its decoded answer with the response it came
  /// from (status, headers, body bytes, URL).
  public nonisolated func response<E: Endpoint>(for endpoint: E) async throws(HTTPError)
    -> DecodedResponse<E.Response>
  {
    let request = try builder.urlRequest(for: endpoint)
    let response = try await data(for: request, timeout: endpoint.timeout ?? configuration.timeout)
    let acceptable = endpoint.acceptableStatusCodes ?? configuration.acceptableStatusCodes
    guard acceptable.contains(response.status) else {
      throw .unacceptableStatus(response)
    }
    do {
      let value = try endpoint.decode(response, using: configuration.decoder)
      return DecodedResponse(value: value, response: response)
    } catch let error as HTTPError {
      throw error
    } catch {
      throw .decodingFailed(
        reason: DecodingFailure.describe(error, as: E.Response.self), response: response)
    }
  }

  // MARK: - Inspecting

  /// The exact `URLRequest` an endpoint becomes, without sending it: URL, method, headers
  /// (defaults merged), body and timeout. Use it to unit-test endpoint definitions.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` when the endpoint cannot form a request.
  public nonisolated func urlRequest<E: Endpoint>(for endpoint: E) throws(HTTPError) -> URLRequest {
    try builder.urlRequest(for: endpoint)
  }

  // MARK: - Transport

  /// Sends a built request within the deadline and checks the body size.
  private nonisolated func data(for request: URLRequest, timeout: Duration?) async throws(HTTPError)
    -> HTTPResponse
  {
    guard !Task.isCancelled else { throw .cancelled }
    let response: HTTPResponse
    if let timeout {
      response = try await transport.send(request, deadline: .now + timeout)
    } else {
      response = try await transport.send(request)
    }
    if let limit = configuration.maximumResponseBytes, response.body.count > limit {
      throw .responseTooLarge(limit: limit)
    }
    return response
  }
}
