import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A description of one request and the type of its answer.
///
/// Only `path` is required; everything else has a default, so a conforming enum states just
/// what varies:
///
/// ```swift
/// enum MovieApi: Endpoint {
///   typealias Response = MoviePage
///   case popular(page: Int)
///   case search(text: String)
///
///   var path: String {
///     switch self {
///     case .popular: "movie/popular"
///     case .search: "search/movie"
///     }
///   }
///
///   var query: Query {
///     switch self {
///     case .popular(let page): ["page": page]
///     case .search(let text): ["query": text]
///     }
///   }
/// }
///
/// let page = try await client.send(MovieApi.popular(page: 1))   // a MoviePage
/// ```
///
/// The default ``decode(_:using:)`` reads `Decodable` types as JSON with the client's
/// decoder, `Data` as the raw body, `String` as text in the body's charset
/// (``HTTPResponse/text``; UTF-8 when none is named), ``EmptyResponse`` from any body,
/// and an `Optional` as `nil` when the body is empty (204, 205 or zero bytes).
public protocol Endpoint: Sendable {
  /// The type of the decoded answer.
  associatedtype Response: Sendable

  /// The path, joined to the client's base URL (`"movie/popular"` or `"/movie/popular"`);
  /// or an absolute `http(s)` URL, used as it is. Characters that cannot stand in a URL
  /// path (spaces, non-ASCII) are percent-encoded; existing `%XX` escapes are kept, a `?`
  /// starts query items, and `.`/`..` segments are refused. Interpolate values that come
  /// from users with `\(segment:)`, which encodes `/`, `?`, `#`, `%` and dots too:
  /// `"search/\(segment: title)"`; an empty value is refused.
  var path: String { get }

  /// The method; `GET` by default.
  var method: HTTPMethod { get }

  /// The query items; none by default.
  var query: Query { get }

  /// Headers for this request; they win over the client's default headers of the same name.
  var headers: HTTPHeaders { get }

  /// The body; none by default.
  var body: RequestBody? { get }

  /// How long the whole request may take, overriding the client's timeout; `nil` (the
  /// default) uses the client's.
  var timeout: Duration? { get }

  /// The status codes that count as success; `nil` (the default) uses the client's.
  var acceptableStatusCodes: StatusCodes? { get }

  /// Switches for middleware, e.g. ``RequestOptions/noRetry``; none by default.
  var options: RequestOptions { get }

  /// How the request uses the client's ``HTTPCache``, if it has one:
  /// ``HTTPCache/Policy/useCache`` (the default), or always revalidate, reload, or only the
  /// cache.
  var cachePolicy: HTTPCache.Policy { get }

  /// Turns a successful response into the answer. Errors thrown here reach the caller as
  /// ``HTTPError/decodingFailed(reason:response:)``, but an ``HTTPError``, which reaches it as
  /// it is (`throw HTTPError.unacceptableStatus(response)` for an error payload sent with 200).
  func decode(_ response: HTTPResponse, using decoder: JSONDecoder) throws -> Response
}

extension Endpoint {
  /// `GET`.
  public var method: HTTPMethod { .get }

  /// No query items.
  public var query: Query { Query() }

  /// No headers of its own.
  public var headers: HTTPHeaders { HTTPHeaders() }

  /// No body.
  public var body: RequestBody? { nil }

  /// The client's timeout.
  public var timeout: Duration? { nil }

  /// The client's acceptable status codes.
  public var acceptableStatusCodes: StatusCodes? { nil }

  /// No options.
  public var options: RequestOptions { [] }

  /// ``HTTPCache/Policy/useCache``.
  public var cachePolicy: HTTPCache.Policy { .useCache }

  /// JSON for `Decodable` types, the raw body for `Data`, text for `String` (in the charset a
  /// byte-order mark or the `Content-Type` names, UTF-8 otherwise),
  /// nothing for ``EmptyResponse``, and `nil` for an `Optional` when the body is empty.
  public func decode(_ response: HTTPResponse, using decoder: JSONDecoder) throws -> Response {
    try ResponseDecoding.decode(Response.self, from: response, using: decoder)
  }
}
