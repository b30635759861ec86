import BenchmarkFixtures
import Courier
import CurlFloor
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// GET a resource and decode it, `requests` times, sequentially or `in-flight` at a time, with
/// one client of each kind. Every request has its own query (`?n=INDEX`), so no client can
/// share one request between callers.
///
///   Suite get VARIANT --url http://127.0.0.1:PORT/ [--path page.json] [--decode page|data]
///                     [--requests 3000] [--in-flight 1] [--warmup 200]
enum GetCase {
  /// The variants, by name.
  static let variants = [
    "raw", "raw-delegate", "async-data", "naive", "courier", "courier-solo", "courier-session",
    "courier-curl",
    "courier-curl-solo",
    "curl-transport", "ahc", "floor-curl",
  ]

  /// Runs one variant and prints its report.
  static func run(_ arguments: Arguments) async throws {
    let base = try arguments.url("url")
    let path = arguments.string("path", default: "page.json")
    guard let decoding = Decoding(rawValue: arguments.string("decode", default: "page")) else {
      throw SuiteError.badOption("decode", arguments.string("decode", default: ""))
    }
    let requests = try arguments.int("requests", default: 3000)
    let inFlight = try arguments.int("in-flight", default: 1)
    let warmup = try arguments.int("warmup", default: 200)
    if arguments.variant == "floor-curl" {
      return try floor(
        base: base, path: path, requests: requests, inFlight: inFlight, warmup: warmup)
    }
    let fetch = try fetcher(arguments.variant, base: base, path: path, decoding: decoding)

    _ = try await Load.run(requests: warmup, inFlight: inFlight, first: requests, fetch)
    ProcessMemory.resetPeak()
    let baseline = ProcessMemory.residentKiB
    var checked = 0
    let sample = try await Meter.measure {
      checked = try await Load.run(requests: requests, inFlight: inFlight, fetch)
    }
    let expected = decoding == .page ? 20 : nil
    if let expected, checked != requests * expected {
      throw SuiteError.unexpected("decoded \(checked) movies, expected \(requests * expected)")
    }
    Report(
      benchmark: "get", variant: arguments.variant, units: requests, unit: "request",
      sample: sample,
      extra: ["baseline_rss_kib": baseline, "peak_rss_kib": ProcessMemory.peakKiB]
    ).print()
  }

  /// The floor's network half: libcurl from C (CurlFloor) GETs every request, `inFlight` at a
  /// time, with no Swift per request and no decoding (``DecodeCase`` measures that half).
  static func floor(base: URL, path: String, requests: Int, inFlight: Int, warmup: Int) throws {
    guard curl_floor_load() == 0 else { throw SuiteError.unexpected("libcurl did not load") }
    let prefix = "\(base.absoluteString)\(path)?n="
    guard curl_floor_get(prefix, Int32(requests), Int32(warmup), Int32(inFlight)) >= 0 else {
      throw SuiteError.unexpected("the floor's warm-up failed")
    }
    ProcessMemory.resetPeak()
    let baseline = ProcessMemory.residentKiB
    var bytes: Int64 = 0
    let sample = Meter.measureSync {
      bytes = curl_floor_get(prefix, 0, Int32(requests), Int32(inFlight))
    }
    guard bytes > 0 else { throw SuiteError.unexpected("the floor's requests failed") }
    Report(
      benchmark: "get", variant: "floor-curl", units: requests, unit: "request", sample: sample,
      extra: ["baseline_rss_kib": baseline, "peak_rss_kib": ProcessMemory.peakKiB]
    ).print()
  }

  /// The fetch of `variant`: request number `index` is `base/path?n=index`.
  static func fetcher(_ variant: String, base: URL, path: String, decoding: Decoding) throws
    -> Fetch
  {
    let url: @Sendable (Int) -> URL = { index in
      URL(string: "\(base.absoluteString)\(path)?n=\(index)")!
    }
    let decoder = JSONDecoder()
    func decoded(_ fetchData: @escaping @Sendable (Int) async throws -> Data) -> Fetch {
      { index in try decoding.check(try await fetchData(index), with: decoder) }
    }
    switch variant {
    case "raw":
      let session = URLSessionFetchers.courierConfiguredSession()
      return decoded(URLSessionFetchers.completionHandler(session: session, url: url))
    case "raw-delegate":
      let fetcher = DelegateFetcher(
        configuration: URLSessionTransport.defaultSessionConfiguration())
      return decoded { index in try await fetcher.data(from: url(index)) }
    case "async-data":
      let session = URLSessionFetchers.courierConfiguredSession()
      return decoded(URLSessionFetchers.asyncData(session: session, url: url))
    case "naive":
      let session = URLSession(configuration: .default)
      return decoded(URLSessionFetchers.completionHandler(session: session, url: url))
    case "courier":
      // URLSessionTransport named: it is Courier over URLSession that this variant measures
      // (a client given no transport gets CurlTransport on Linux).
      return courier(
        HTTPClient(baseURL: base, transport: URLSessionTransport()), path: path,
        decoding: decoding)
    case "courier-solo":
      // The same without sharing identical requests: what the coalescer's task costs.
      return courier(
        HTTPClient(
          baseURL: base, configuration: HTTPClient.Configuration(coalescesRequests: false),
          transport: URLSessionTransport()), path: path, decoding: decoding)
    case "courier-session":
      let transport = URLSessionTransport(session: URLSessionFetchers.courierConfiguredSession())
      return courier(
        HTTPClient(baseURL: base, transport: transport), path: path, decoding: decoding)
    #if canImport(FoundationNetworking)
      case "courier-curl":
        return courier(
          HTTPClient(baseURL: base, transport: CurlTransport()), path: path, decoding: decoding)
      case "courier-curl-solo":
        // The same without sharing identical requests: what the coalescer's task costs.
        let configuration = HTTPClient.Configuration(coalescesRequests: false)
        return courier(
          HTTPClient(baseURL: base, configuration: configuration, transport: CurlTransport()),
          path: path, decoding: decoding)
      case "curl-transport":
        // CurlTransport alone, through the contract's buffered send: what the pipeline adds.
        let transport = CurlTransport()
        return decoded { index in
          let response: HTTPResponse = try await transport.send(URLRequest(url: url(index)))
          return response.body
        }
    #endif
    case "ahc":
      return AsyncHTTPClientFetchers.get(url: url, decoding: decoding)
    default:
      throw SuiteError.unknownVariant("get", variant)
    }
  }

  /// Courier's `send`, decoding with the client's (default) `JSONDecoder`.
  private static func courier(_ client: HTTPClient, path: String, decoding: Decoding) -> Fetch {
    switch decoding {
    case .page:
      { index in
        try await client.send(Request<MoviePage>(path: path, query: ["n": index])).results.count
      }
    case .data:
      { index in try await client.send(Request<Data>(path: path, query: ["n": index])).count }
    }
  }
}
