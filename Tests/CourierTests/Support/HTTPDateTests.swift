import Foundation
import Testing

@testable import Courier

@Suite("HTTP dates: the three forms of RFC 9110 §5.6.7, and nothing else")
struct HTTPDateTests {
  /// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example.
  static let example = Date(timeIntervalSince1970: 784_111_777)
  /// A fixed "now" for the RFC 850 form's two-digit years: 2026-11-25.
  static let now = Date(timeIntervalSince1970: 1_795_564_800)

  @Test("the RFC's example in each of the three forms names one instant")
  func forms() {
    #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: Self.now) == Self.example)
    #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: Self.now) == Self.example)
    #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994", now: Self.now) == Self.example)
    #expect(HTTPDate.parse("Sun Nov 06 08:49:37 1994", now: Self.now) == Self.example)
    #expect(
      HTTPDate.parse("Tue, 29 Feb 2028 23:59:59 GMT") == Date(timeIntervalSince1970: 1_835_481_599))
  }

  @Test("what the preferred form writes, it reads back, over a century of instants")
  func roundTrip() {
    for seconds in stride(from: 0.0, to: 4_000_000_000, by: 86_400 * 37 + 3_723) {
      let date = Date(timeIntervalSince1970: seconds)
      #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
    }
  }

  /// Values a cache must treat as invalid (so an `Expires` of them is already expired): the
  /// cases of http-tests/cache-tests' expires-freshness, with more of the same kinds.
  @Test(
    "values off the grammar are no date",
    arguments: [
      "0", "", "soon", "Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 50 02:01:18 GMT",
      "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT",
      "Thu, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 02.01.18 GMT",
      "Thu, 18 Aug 2050 2:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 +0000",
      "Thu, 18 Aug 2050 02:01:18", "Xyz, 18 Aug 2050 02:01:18 GMT", "Thu, 18 Xyz 2050 02:01:18 GMT",
      "Thu, 8 Aug 2050 02:01:18 GMT", "Thursday, 18 Aug 2050 02:01:18 GMT",
      "Thu, 18-Aug-50 02:01:18 GMT", "Thursday, 18-Aug-2050 02:01:18 GMT",
      "Thursday, 18 Aug 50 02:01:18 GMT", "Thu Aug 18 02:01:18 50", "Thu Aug 18 02:01:18 GMT 2050",
      "Sat, 31 Feb 2026 08:49:37 GMT", "Sat, 29 Feb 2025 08:49:37 GMT",
      "Thu, 18 Aug 2050 24:00:00 GMT", "Thu, 18 Aug 2050 02:60:00 GMT",
      "Thu, 18 Aug 2050 02:01:61 GMT", "Thu, 18 Aug 0000 02:01:18 GMT",
      "Thu, 18 Aug 2050 02:01:18 GMT, Fri, 19 Aug 2050 02:01:18 GMT",
    ])
  func invalid(_ value: String) {
    #expect(HTTPDate.parse(value, now: Self.now) == nil)
  }

  @Test("day and month names and GMT are read in any case, as browsers read them")
  func anyCase() {
    let expected = HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT")
    #expect(expected != nil)
    for value in [
      "THU, 18 Aug 2050 02:01:18 GMT", "Thu, 18 AUG 2050 02:01:18 GMT",
      "Thu, 18 Aug 2050 02:01:18 gMT", "thursday, 18-aug-50 02:01:18 gmt",
    ] {
      #expect(HTTPDate.parse(value, now: Self.now) == expected, "\(value)")
    }
  }

  @Test("an RFC 850 year more than 50 years ahead is the one a century before")
  func twoDigitYears() {
    func year(_ twoDigits: String) -> Int? {
      HTTPDate.parse("Friday, 01-Jan-\(twoDigits) 00:00:00 GMT", now: Self.now).map {
        Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: $0)
          .year!
      }
    }
    #expect(year("26") == 2026)
    #expect(year("50") == 2050)
    #expect(year("76") == 2076)  // 50 years ahead: still ahead
    #expect(year("77") == 1977)  // 51 years ahead: the century before
    #expect(year("99") == 1999)
    #expect(year("00") == 2000)
  }

  @Test("spaces and tabs around the value are not part of it")
  func surroundingWhitespace() {
    #expect(HTTPDate.parse("  Sun, 06 Nov 1994 08:49:37 GMT\t") == Self.example)
  }
}
