import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A server of `resource` whose first `drops` answers close the connection after `dropAfter`
/// body bytes, recording the requests it saw.
struct FlakyServer {
  let server: LoopbackServer
  let seen: Locked<[LoopbackRequest]>

  init(_ resource: LoopbackResource, drops: Int = 1, dropAfter: Int) throws {
    let seen = Locked<[LoopbackRequest]>([])
    let cut = Gate()
    server = try LoopbackServer { request, response in
      let number = seen.withLock { requests in
        requests.append(request)
        return requests.count
      }
      try await resource.serve(
        request, with: response, closingAfter: number <= drops ? dropAfter : nil,
        beforeClosing: { await cut.wait() })
    }
    self.seen = seen
    self.cut = cut
  }

  /// Opened by ``runTransfer(_:opening:)`` once the client reports bytes, so that the connection
  /// drops mid-transfer, after the client has seen the head and the first bytes.
  let cut: Gate

  var client: HTTPClient { HTTPClient(baseURL: server.baseURL) }

  /// Downloads `request` to `destination` with `options`, the connection dropping as set
  /// up, and records an issue unless the download fails.
  func expectFailure(
    _ request: Request<Data> = Request<Data>(path: "f"), to destination: URL,
    options: TransferOptions = TransferOptions(),
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    await #expect(throws: HTTPError.self, sourceLocation: sourceLocation) {
      try await runTransfer(
        client.download(request, to: destination, options: options), opening: cut)
    }
  }
  var requests: [LoopbackRequest] { seen.withLock { $0 } }
}

/// The first byte a range request asked for.
func rangeStart(_ request: LoopbackRequest?) -> Int? {
  guard let value = request?.headers["Range"], value.hasPrefix("bytes=") else { return nil }
  return Int(value.dropFirst(6).prefix { $0 != "-" })
}

/// Runs `transfer`, returning its outcome and the last progress it reported; opens `cut`
/// at the first bytes reported.
func runTransfer(_ transfer: Transfer<DownloadedFile>, opening cut: Gate = Gate()) async throws -> (
  DownloadedFile, TransferProgress?
) {
  var last: TransferProgress?
  for try await event in transfer {
    switch event {
    case .progress(let progress):
      last = progress
      if progress.completedBytes > 0 { cut.open() }
    case .completed(let file): return (file, last)
    }
  }
  throw HTTPError.cancelled
}
