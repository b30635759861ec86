import AsyncHTTPClient
import BenchmarkFixtures
import Foundation
import NIOCore
import NIOFoundationCompat

/// AsyncHTTPClient (SwiftNIO) with its default configuration (8 connections per host) on
/// the shared event loop group, as its README shows it.
enum AsyncHTTPClientFetchers {
  /// The client every AsyncHTTPClient variant of the process uses; never shut down, like
  /// `HTTPClient.shared`.
  static let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)

  /// GET with `execute(_:timeout:)`, the body collected into one buffer and decoded from it
  /// without a copy into `Data` (NIOFoundationCompat).
  static func get(url: @escaping @Sendable (Int) -> URL, decoding: Decoding) -> Fetch {
    let decoder = JSONDecoder()
    return { index in
      let request = HTTPClientRequest(url: url(index).absoluteString)
      let response = try await client.execute(request, timeout: .seconds(60))
      guard response.status == .ok else { throw SuiteError.unexpected("\(response.status)") }
      let body = try await response.body.collect(upTo: 16 << 20)
      switch decoding {
      case .page: return try decoder.decode(MoviePage.self, from: body).results.count
      case .data: return body.readableBytes
      }
    }
  }

  /// Downloads `url` to `path` with AsyncHTTPClient's `FileDownloadDelegate`, which streams
  /// the body to disk through NIO's non-blocking file I/O; returns the bytes received.
  static func download(_ url: URL, to path: String) async throws -> Int {
    let delegate = try FileDownloadDelegate(path: path, pool: nil)
    let request = try HTTPClient.Request(url: url.absoluteString)
    let progress = try await client.execute(request: request, delegate: delegate).get()
    guard progress.head.status == .ok else {
      throw SuiteError.unexpected("\(progress.head.status)")
    }
    return progress.receivedBytes
  }
}
