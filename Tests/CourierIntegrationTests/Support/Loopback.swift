import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

struct Movie: Codable, Sendable, Equatable {
  var id: Int
  var title: String
}

/// A fresh loopback server and a client for it, with `/3` as the base path like TMDB's.
/// Call `stop()` when done (`defer { loopback.stop() }`).
struct Loopback {
  let server: LoopbackServer
  let client: HTTPClient

  init(
    configuration: HTTPClient.Configuration = HTTPClient.Configuration(),
    transport: (any HTTPTransport)? = nil,
    handler: @escaping LoopbackServer.Handler
  ) throws {
    server = try LoopbackServer(handler: handler)
    client = HTTPClient(
      baseURL: server.baseURL.appendingPathComponent("3"), configuration: configuration,
      transport: transport)
  }

  func stop() {
    server.stop()
  }
}

/// The request line and body the server saw, echoed back as JSON.
struct Echo: Codable, Sendable {
  var method: String
  var target: String
  var path: String
  var query: [[String]]
  var headers: [String: String]
  var body: String
}

extension LoopbackRequest {
  var echo: Echo {
    var headerMap: [String: String] = [:]
    for field in headers { headerMap[field.name.lowercased()] = field.value }
    return Echo(
      method: method, target: target, path: path, query: queryItems.map { [$0.name, $0.value] },
      headers: headerMap, body: String(decoding: body, as: UTF8.self))
  }
}

extension LoopbackResponse {
  func send(encoding value: some Encodable, status: Int = 200) async throws {
    let json = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    try await send(status: status, json: json)
  }
}

extension HTTPError {
  /// The reason of an `invalidRequest`, or nil.
  var invalidRequestReason: String? {
    if case .invalidRequest(let reason) = self { return reason }
    return nil
  }
}

/// A session of the test's own, as a user passes one to `URLSessionTransport(session:)`.
/// Call `invalidate()` when done (`defer { own.invalidate() }`).
struct OwnSession {
  let session = URLSession(configuration: URLSessionTransport.defaultSessionConfiguration())

  /// A transport over the session.
  var transport: URLSessionTransport { URLSessionTransport(session: session) }

  func invalidate() {
    session.finishTasksAndInvalidate()
  }
}
