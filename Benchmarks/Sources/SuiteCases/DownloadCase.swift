import BenchmarkFixtures
import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Downloads a large file (nginx's `100mb.bin`) to disk, once, after a warm-up download of a
/// small one, and reports time, CPU, allocations and the peak resident memory of the download
/// (the peak is reset after the warm-up), so that a client that holds the body in memory shows.
///
///   Suite download VARIANT --url http://127.0.0.1:PORT/ --dir /tmp/DIR [--path 100mb.bin]
enum DownloadCase {
  /// The variants, by name.
  static let variants = ["urlsession", "ahc", "courier", "courier-curl"]

  /// Runs one variant and prints its report.
  static func run(_ arguments: Arguments) async throws {
    let base = try arguments.url("url")
    let source = base.appendingPathComponent(arguments.string("path", default: "100mb.bin"))
    let warmupSource = base.appendingPathComponent("1mb.bin")
    let directory = URL(fileURLWithPath: arguments.string("dir", default: NSTemporaryDirectory()))
    let destination = directory.appendingPathComponent("download-\(arguments.variant).bin")
    defer { try? FileManager.default.removeItem(at: destination) }

    let download: @Sendable (URL) async throws -> Int
    switch arguments.variant {
    case "urlsession":
      let session = URLSessionFetchers.courierConfiguredSession()
      download = { url in try await downloadTask(session: session, url: url, to: destination) }
    case "ahc":
      download = { url in try await AsyncHTTPClientFetchers.download(url, to: destination.path) }
    case "courier", "courier-curl":
      // A client with the default configuration (or over libcurl, Linux); the file streamed
      // to `destination`.
      let client = courierClient(base: base, curl: arguments.variant == "courier-curl")
      download = { url in
        let file = try await client.download(
          Request<Data>(path: url.lastPathComponent), to: destination
        ).finished()
        let size = try FileManager.default.attributesOfItem(atPath: file.url.path)[.size]
        return size as? Int ?? 0
      }
    default:
      throw SuiteError.unknownVariant("download", arguments.variant)
    }

    _ = try await download(warmupSource)
    try? FileManager.default.removeItem(at: destination)
    ProcessMemory.resetPeak()
    let baseline = ProcessMemory.residentKiB
    var bytes = 0
    let sample = try await Meter.measure { bytes = try await download(source) }
    let written = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int
    guard written == bytes, bytes > 0 else {
      throw SuiteError.unexpected("received \(bytes) bytes, file has \(written ?? -1)")
    }
    Report(
      benchmark: "download", variant: arguments.variant, units: 1, unit: "download",
      sample: sample,
      extra: [
        "bytes": bytes, "baseline_rss_kib": baseline, "peak_rss_kib": ProcessMemory.peakKiB,
      ]
    ).print()
  }

  /// URLSession's completion-handler `downloadTask`: libcurl writes a temporary file, which
  /// the handler moves to `destination` (FoundationNetworking leaves it behind otherwise).
  static func downloadTask(session: URLSession, url: URL, to destination: URL) async throws
    -> Int
  {
    try await withCheckedThrowingContinuation { continuation in
      session.downloadTask(with: url) { location, response, error in
        guard let location, error == nil, (response as? HTTPURLResponse)?.statusCode == 200
        else {
          continuation.resume(throwing: error ?? URLError(.badServerResponse))
          return
        }
        continuation.resume(
          with: Result {
            try? FileManager.default.removeItem(at: destination)
            try FileManager.default.moveItem(at: location, to: destination)
            let size = try FileManager.default.attributesOfItem(atPath: destination.path)[.size]
            return size as? Int ?? 0
          })
      }.resume()
    }
  }

  /// Courier's client over URLSession, or over libcurl (Linux). (Named, not the default: a
  /// client given no transport gets CurlTransport on Linux.)
  private static func courierClient(base: URL, curl: Bool) -> HTTPClient {
    #if canImport(FoundationNetworking)
      if curl { return HTTPClient(baseURL: base, transport: CurlTransport()) }
    #endif
    return HTTPClient(baseURL: base, transport: URLSessionTransport())
  }
}
