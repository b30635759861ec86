import Foundation
import Testing

@testable import Courier

/// Freshness and age (RFC 9111 §4.2), from plain dates.
@Suite("Cache freshness")
struct CacheFreshnessTests {
  static let received = Date(timeIntervalSince1970: 1_700_000_000)

  /// An entry for a response with `headers` (and `status`), requested `delay` seconds before
  /// it was received at ``received``.
  func entry(_ headers: [String: String], status: Int = 200, delay: Double = 0) -> CacheEntry {
    CacheEntry(
      metadata: .init(
        primaryKey: "p", variantKey: "v", status: status,
        headers: headers.sorted { $0.key < $1.key }.map { [$0.key, $0.value] }, url: nil,
        requestTime: Self.received - delay, responseTime: Self.received, varyNames: []),
      body: Data())
  }

  func date(_ offset: Double) -> String { HTTPDate.format(Self.received + offset) }

  let none = CacheControl(HTTPHeaders())

  @Test("max-age wins over Expires")
  func maxAge() {
    let entry = entry(["Cache-Control": "max-age=60", "Expires": date(3600), "Date": date(0)])
    #expect(entry.lifetime == 60)
    #expect(entry.isFresh(at: Self.received + 59, request: none))
    #expect(!entry.isFresh(at: Self.received + 61, request: none))
  }

  @Test("Expires counts from Date; an unreadable Expires is already stale")
  func expires() {
    #expect(entry(["Expires": date(120), "Date": date(0)]).lifetime == 120)
    #expect(entry(["Expires": date(120), "Date": date(-60)]).lifetime == 180)
    #expect(entry(["Expires": "0", "Date": date(0)]).lifetime == 0)
    #expect(!entry(["Expires": "0"]).isFresh(at: Self.received, request: none))
  }

  /// http-tests/cache-tests' invalid `Expires` cases (required): each, 2050 or not, is a
  /// date in the past; a name in another case is still read (cache-tests: "should").
  @Test(
    "an invalid Expires is already expired, whatever year it seems to name",
    arguments: [
      "0", "Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 50 02:01:18 GMT",
      "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT",
      "Thu, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 02.01.18 GMT",
      "Thu, 18 Aug 2050 2:01:18 GMT",
    ])
  func invalidExpires(_ value: String) {
    let entry = entry(["Expires": value, "Date": date(0)])
    #expect(entry.lifetime == 0)
    #expect(!entry.isFresh(at: Self.received, request: none))
  }

  @Test("two Expires lines make the response stale, as their joined value does")
  func twoExpires() {
    let entry = CacheEntry(
      metadata: .init(
        primaryKey: "p", variantKey: "v", status: 200,
        headers: [["Date", date(0)], ["Expires", date(600)], ["Expires", date(1200)]], url: nil,
        requestTime: Self.received, responseTime: Self.received, varyNames: []),
      body: Data())
    #expect(entry.lifetime == 0)
    #expect(self.entry(["Expires": "\(date(600)), \(date(1200))", "Date": date(0)]).lifetime == 0)
  }

  @Test("an Expires whose names are in another case is read")
  func expiresInAnyCase() {
    #expect(entry(["Expires": "THU, 18 AUG 2050 02:01:18 gMT", "Date": date(0)]).lifetime > 0)
  }

  @Test("an unreadable max-age makes the response stale, not fresh forever")
  func invalidMaxAge() {
    #expect(entry(["Cache-Control": "max-age=soon"]).lifetime == 0)
    #expect(entry(["Cache-Control": "max-age=-5"]).lifetime == 0)
    #expect(entry(["Cache-Control": "max-age=99999999999999"]).lifetime == 2_147_483_648)
  }

  @Test("Age and time in transit add to the age")
  func age() {
    let entry = entry(["Cache-Control": "max-age=100", "Age": "30", "Date": date(0)], delay: 5)
    #expect(entry.initialAge == 35)
    #expect(entry.age(at: Self.received + 10) == 45)
    #expect(entry.isFresh(at: Self.received + 64, request: none))
    #expect(!entry.isFresh(at: Self.received + 66, request: none))
    // A Date in the past (a clock behind, or a response held upstream) counts too.
    #expect(self.entry(["Date": date(-50)]).initialAge == 50)
  }

  @Test("Age is delta-seconds only: digits, the first of a list, clamped")
  func ageValues() {
    #expect(CacheEntry.deltaSeconds("90") == 90)
    #expect(CacheEntry.deltaSeconds(" 90 , 100") == 90)
    #expect(CacheEntry.deltaSeconds("99999999999999") == 2_147_483_648)
    for bad in ["inf", "nan", "0x1A", "1e3", "-5", "", "1.5"] {
      #expect(CacheEntry.deltaSeconds(bad) == nil, "\(bad)")
    }
  }

  @Test("heuristic: a tenth of the time since Last-Modified, capped at a day, only where allowed")
  func heuristic() {
    #expect(entry(["Last-Modified": date(-1000), "Date": date(0)]).lifetime == 100)
    #expect(entry(["Last-Modified": date(-100 * 86400), "Date": date(0)]).lifetime == 86400)
    #expect(entry(["Last-Modified": date(-1000)], status: 404).lifetime == 100)
    #expect(entry(["Last-Modified": date(-1000)], status: 500).lifetime == 0)
    #expect(
      entry(["Last-Modified": date(-1000), "Cache-Control": "public"], status: 500).lifetime
        == 100)
    #expect(entry(["Date": date(0)]).lifetime == 0)
  }

  @Test("no-cache, of the response or of the request, is never fresh")
  func noCache() {
    #expect(
      !entry(["Cache-Control": "max-age=60, no-cache"]).isFresh(at: Self.received, request: none))
    let request = CacheControl(["Cache-Control": "no-cache"])
    #expect(!entry(["Cache-Control": "max-age=60"]).isFresh(at: Self.received, request: request))
    #expect(
      !entry(["Cache-Control": "max-age=60"]).isFresh(
        at: Self.received, request: CacheControl(["Pragma": "no-cache"])))
  }

  @Test("the request's max-age, min-fresh and max-stale")
  func requestDirectives() {
    let entry = entry(["Cache-Control": "max-age=100"])
    let at50 = Self.received + 50
    #expect(!entry.isFresh(at: at50, request: CacheControl(["Cache-Control": "max-age=40"])))
    #expect(entry.isFresh(at: at50, request: CacheControl(["Cache-Control": "max-age=60"])))
    #expect(!entry.isFresh(at: at50, request: CacheControl(["Cache-Control": "min-fresh=60"])))
    #expect(entry.isFresh(at: at50, request: CacheControl(["Cache-Control": "min-fresh=40"])))
    let at150 = Self.received + 150
    #expect(entry.isFresh(at: at150, request: CacheControl(["Cache-Control": "max-stale=60"])))
    #expect(!entry.isFresh(at: at150, request: CacheControl(["Cache-Control": "max-stale=10"])))
    #expect(entry.isFresh(at: at150, request: CacheControl(["Cache-Control": "max-stale"])))
    let strict = self.entry(["Cache-Control": "max-age=100, must-revalidate"])
    #expect(!strict.isFresh(at: at150, request: CacheControl(["Cache-Control": "max-stale"])))
  }

  @Test("a 304 replaces the headers it carries, but not those describing the stored body")
  func refreshed() {
    let stored = entry([
      "Cache-Control": "max-age=0", "Content-Length": "10", "ETag": "\"v1\"", "X-Kept": "yes",
    ])
    let notModified = HTTPResponse(
      status: 304,
      headers: ["Cache-Control": "max-age=300", "Content-Length": "0", "ETag": "\"v1\""])
    let refreshed = stored.refreshed(
      by: notModified, requestTime: Self.received + 99, responseTime: Self.received + 100)
    #expect(refreshed.headers["Cache-Control"] == "max-age=300")
    #expect(refreshed.headers["Content-Length"] == "10")
    #expect(refreshed.headers["X-Kept"] == "yes")
    #expect(refreshed.isFresh(at: Self.received + 200, request: none))
  }

  @Test("Cache-Control parsing: case, spaces, quoted values with commas, first of duplicates")
  func parsing() {
    let control = CacheControl([
      "Cache-Control": "Max-Age = 30 , private=\"Set-Cookie, X-Other\", no-cache, max-age=90"
    ])
    #expect(control.seconds("max-age") == .value(30))
    #expect(control.has("private"))
    #expect(control.has("no-cache"))
    #expect(!control.has("x-other\""))
    #expect(control.seconds("s-maxage") == nil)
  }
}
