import BenchmarkFixtures
import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Pages through `pages` pages of nginx's fixture page (`page.json?page=N`) and reports time
/// per page and resident memory after page 100 and after the last page, so that memory that
/// grows with the number of pages shows.
///
///   Suite paging VARIANT --url http://127.0.0.1:PORT/ [--pages 1000]
enum PagingCase {
  /// The variants, by name.
  static let variants = ["raw", "courier", "courier-prefetch"]

  /// Runs one variant and prints its report.
  static func run(_ arguments: Arguments) async throws {
    let base = try arguments.url("url")
    let pages = try arguments.int("pages", default: 1000)
    // Over URLSession, as "raw" is (on Linux a client given no transport gets CurlTransport).
    let client = HTTPClient(baseURL: base, transport: URLSessionTransport())
    let session = URLSessionFetchers.courierConfiguredSession()
    _ = try await client.send(PopularMovies(lastPage: 1))  // connections and caches warm
    ProcessMemory.resetPeak()
    let baseline = ProcessMemory.residentKiB
    var residentAt100 = 0
    var seen = 0
    let record: (MoviePage) -> Void = { page in
      seen += 1
      if seen == min(100, pages) { residentAt100 = ProcessMemory.residentKiB }
    }
    let sample = try await Meter.measure {
      switch arguments.variant {
      case "raw":
        let fetch = URLSessionFetchers.completionHandler(session: session) { page in
          URL(string: "\(base.absoluteString)page.json?page=\(page)")!
        }
        let decoder = JSONDecoder()
        for page in 1...pages {
          record(try decoder.decode(MoviePage.self, from: try await fetch(page)))
        }
      case "courier", "courier-prefetch":
        let prefetch = arguments.variant == "courier-prefetch"
        for try await page in client.pages(PopularMovies(lastPage: pages), prefetch: prefetch) {
          record(page)
        }
      default:
        throw SuiteError.unknownVariant("paging", arguments.variant)
      }
    }
    guard seen == pages else { throw SuiteError.unexpected("saw \(seen) of \(pages) pages") }
    Report(
      benchmark: "paging", variant: arguments.variant, units: pages, unit: "page",
      sample: sample,
      extra: [
        "baseline_rss_kib": baseline, "rss_at_100_kib": residentAt100,
        "rss_at_end_kib": ProcessMemory.residentKiB, "peak_rss_kib": ProcessMemory.peakKiB,
      ]
    ).print()
  }
}
