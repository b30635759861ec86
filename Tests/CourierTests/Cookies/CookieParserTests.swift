import Courier
import Foundation
import Testing

/// The cookie parser and jar against abarth/http-state's cases.
@Suite("Cookies: http-state's parser cases")
struct CookieParserTests {
  /// The suite's era: its "future" dates (2019, 2027) lie ahead of it, its past ones behind.
  static let suiteNow = Date(timeIntervalSince1970: 1_293_840_000)  // 2011-01-01

  @Test(
    "each case sends back exactly the cookies the suite expects", arguments: HTTPStateCases.parser)
  func parserCase(_ test: ParserCase) throws {
    let jar = CookieJar(today: { Self.suiteNow })
    let origin = URL(string: "http://home.example.org:8888")!
    let setAt = URL(string: "/cookie-parser?\(test.name.lowercased())", relativeTo: origin)!
    jar.store(test.received, from: setAt.absoluteURL)
    let target = URL(
      string: test.sentTo ?? "/cookie-parser-result?\(test.name.lowercased())", relativeTo: origin
    )!.absoluteURL
    let sent = jar.cookies(for: target).map { "\($0.name)=\($0.value)" }
    #expect(sent == test.sent.map { "\($0.name)=\($0.value)" })
  }

  @Test("Expires dates read as the suite reads them (its dates and the BSD examples)")
  func dates() throws {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    for (text, expected) in HTTPStateCases.dates {
      // A day before the date expected: it lies ahead, within the jar's 400-day limit.
      let today =
        expected.flatMap(formatter.date(from:)).map { $0 - 86_400 }
        ?? Date(timeIntervalSince1970: 0) - 1e10
      let jar = CookieJar(today: { today })
      jar.store(["a=b; Expires=\(text)"], from: URL(string: "http://example.test/")!)
      let expires = jar.cookies.first?.expires
      #expect(expires.map(formatter.string(from:)) == expected, "\(text)")
    }
  }
}
