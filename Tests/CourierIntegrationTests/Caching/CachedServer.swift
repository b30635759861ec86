import Courier
import CourierTestSupport
import CourierTesting
import Foundation

/// A loopback server serving `resource` at every path (a handler may change it), with a
/// client that caches in `cache`, and the requests the server saw.
struct CachedServer {
  let loopback: Loopback
  let seen: Locked<[LoopbackRequest]>
  let resource: Locked<LoopbackResource>

  init(
    _ resource: LoopbackResource, cache: HTTPCache = HTTPCache(),
    configuration: HTTPClient.Configuration = HTTPClient.Configuration()
  ) throws {
    let seen = Locked<[LoopbackRequest]>([])
    let current = Locked(resource)
    var configuration = configuration
    configuration.cache = cache
    loopback = try Loopback(configuration: configuration) { request, response in
      seen.withLock { $0.append(request) }
      if request.method == "GET" {
        try await current.withLock { $0 }.serve(request, with: response)
      } else {
        try await response.send(status: 201, headers: ["Location": "/3/movies/new"])
      }
    }
    self.seen = seen
    self.resource = current
  }

  var client: HTTPClient { loopback.client }
  var requests: [LoopbackRequest] { seen.withLock { $0 } }
  func stop() { loopback.stop() }

  static let movie = Movie(id: 42, title: "Heat")
  static var movieJSON: Data { try! JSONEncoder().encode(movie) }
}
