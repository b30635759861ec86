// Cases of abarth/http-state (tests/data/parser.json and tests/data/dates/*.json), the
// cookie parser suite, as data: Set-Cookie lines received at
// http://home.example.org:8888/cookie-parser?<case>, and the cookies a request to the case's
// "sent-to" URL (or /cookie-parser-result?<case>) carries, in order. The suite's DISABLED_
// cases are left out, as it leaves them out.

struct ParserCase: Sendable, CustomStringConvertible {
  let name: String
  let received: [String]
  let sentTo: String?
  let sent: [(name: String, value: String)]

  init(
    _ name: String, received: [String], sentTo: String?, sent: [(String, String)]
  ) {
    self.name = name
    self.received = received
    self.sentTo = sentTo
    self.sent = sent.map { (name: $0.0, value: $0.1) }
  }

  var description: String { name }
}

enum HTTPStateCases {
  static let parser: [ParserCase] = [
    ParserCase(
      "0001", received: ["foo=bar"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "0002", received: ["foo=bar; Expires=Fri, 07 Aug 2019 08:04:19 GMT"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "0003",
      received: [
        "foo=bar; Expires=Fri, 07 Aug 2007 08:04:19 GMT",
        "foo2=bar2; Expires=Fri, 07 Aug 2027 08:04:19 GMT",
      ], sentTo: nil,
      sent: [("foo2", "bar2")]),
    ParserCase(
      "0004", received: ["foo"], sentTo: nil,
      sent: []),
    ParserCase(
      "0005", received: ["foo=bar; max-age=10000;"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "0006", received: ["foo=bar; max-age=0;"], sentTo: nil,
      sent: []),
    ParserCase(
      "0007", received: ["foo=bar; version=1;"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "0008", received: ["foo=bar; version=1000;"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "0009", received: ["foo=bar; customvalue=1000;"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "0010", received: ["foo=bar; secure;"], sentTo: nil,
      sent: []),
    ParserCase(
      "0011", received: ["foo=bar; customvalue=\"1000 or more\";"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "0012", received: ["foo=bar; customvalue=\"no trailing semicolon\""], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "0013", received: ["foo=bar", "foo=qux"], sentTo: nil,
      sent: [("foo", "qux")]),
    ParserCase(
      "0014", received: ["foo1=bar", "foo2=qux"], sentTo: nil,
      sent: [("foo1", "bar"), ("foo2", "qux")]),
    ParserCase(
      "0015", received: ["a=b", "z=y"], sentTo: nil,
      sent: [("a", "b"), ("z", "y")]),
    ParserCase(
      "0016", received: ["z=y", "a=b"], sentTo: nil,
      sent: [("z", "y"), ("a", "b")]),
    ParserCase(
      "0017", received: ["z=y, a=b"], sentTo: nil,
      sent: [("z", "y, a=b")]),
    ParserCase(
      "0018", received: ["z=y; foo=bar, a=b"], sentTo: nil,
      sent: [("z", "y")]),
    ParserCase(
      "0019", received: ["foo=b;max-age=3600, c=d;path=/"], sentTo: nil,
      sent: [("foo", "b")]),
    ParserCase(
      "0020", received: ["a=b", "=", "c=d"], sentTo: nil,
      sent: [("a", "b"), ("c", "d")]),
    ParserCase(
      "0021", received: ["a=b", "=x", "c=d"], sentTo: nil,
      sent: [("a", "b"), ("c", "d")]),
    ParserCase(
      "0022", received: ["a=b", "x=", "c=d"], sentTo: nil,
      sent: [("a", "b"), ("x", ""), ("c", "d")]),
    ParserCase(
      "0023", received: ["foo", ""], sentTo: nil,
      sent: []),
    ParserCase(
      "0024", received: ["foo", "="], sentTo: nil,
      sent: []),
    ParserCase(
      "0025", received: ["foo", "; bar"], sentTo: nil,
      sent: []),
    ParserCase(
      "0026", received: ["foo", "   "], sentTo: nil,
      sent: []),
    ParserCase(
      "0027", received: ["foo", "bar"], sentTo: nil,
      sent: []),
    ParserCase(
      "0028", received: ["foo", "\u{9}"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0001", received: ["foo=bar; Secure"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0002", received: ["foo=bar; seCURe"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0003", received: ["foo=bar; \"Secure\""], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "ATTRIBUTE0004", received: ["foo=bar; Secure="], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0005", received: ["foo=bar; Secure=aaaa"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0006", received: ["foo=bar; Secure qux"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "ATTRIBUTE0007", received: ["foo=bar; Secure =aaaaa"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0008", received: ["foo=bar; Secure= aaaaa"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0009", received: ["foo=bar; Secure; qux"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0010", received: ["foo=bar; Secure;qux"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0011", received: ["foo=bar; Secure    ; qux"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0012", received: ["foo=bar;                Secure"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0013", received: ["foo=bar;       Secure     ;"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0014", received: ["foo=bar; Path"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "ATTRIBUTE0015", received: ["foo=bar; Path="], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "ATTRIBUTE0016", received: ["foo=bar; Path=/"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "ATTRIBUTE0017", received: ["foo=bar; Path=/qux"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0018", received: ["foo=bar; Path    =/qux"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0019", received: ["foo=bar; Path=    /qux"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0020", received: ["foo=bar; Path=/qux      ; taz"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0021", received: ["foo=bar; Path=/qux; Path=/"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "ATTRIBUTE0022", received: ["foo=bar; Path=/; Path=/qux"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0023", received: ["foo=bar; Path=/qux; Path=/cookie-parser-result"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "ATTRIBUTE0024", received: ["foo=bar; Path=/cookie-parser-result; Path=/qux"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0025", received: ["foo=bar; qux; Secure"], sentTo: nil,
      sent: []),
    ParserCase(
      "ATTRIBUTE0026", received: ["foo=bar; qux=\"aaa;bbb\"; Secure"], sentTo: nil,
      sent: []),
    ParserCase(
      "CHARSET0001",
      received: [
        "foo=\u{6625}\u{8282}\u{56de}\u{5bb6}\u{8def}\u{b7}\u{6625}\u{8fd0}\u{5b8c}\u{5168}\u{624b}\u{518c}"
      ], sentTo: nil,
      sent: [
        (
          "foo",
          "\u{6625}\u{8282}\u{56de}\u{5bb6}\u{8def}\u{b7}\u{6625}\u{8fd0}\u{5b8c}\u{5168}\u{624b}\u{518c}"
        )
      ]),
    ParserCase(
      "CHARSET0002",
      received: [
        "\u{6625}\u{8282}\u{56de}=\u{5bb6}\u{8def}\u{b7}\u{6625}\u{8fd0}\u{5b8c}\u{5168}\u{624b}\u{518c}"
      ], sentTo: nil,
      sent: [
        (
          "\u{6625}\u{8282}\u{56de}",
          "\u{5bb6}\u{8def}\u{b7}\u{6625}\u{8fd0}\u{5b8c}\u{5168}\u{624b}\u{518c}"
        )
      ]),
    ParserCase(
      "CHARSET0003",
      received: [
        "\u{6625}\u{8282}\u{56de}=\u{5bb6}\u{8def}\u{b7}\u{6625}\u{8fd0}; \u{5b8c}\u{5168}\u{624b}\u{518c}"
      ], sentTo: nil,
      sent: [("\u{6625}\u{8282}\u{56de}", "\u{5bb6}\u{8def}\u{b7}\u{6625}\u{8fd0}")]),
    ParserCase(
      "CHARSET0004",
      received: [
        "foo=\"\u{6625}\u{8282}\u{56de}\u{5bb6}\u{8def}\u{b7}\u{6625}\u{8fd0}\u{5b8c}\u{5168}\u{624b}\u{518c}\""
      ], sentTo: nil,
      sent: [
        (
          "foo",
          "\"\u{6625}\u{8282}\u{56de}\u{5bb6}\u{8def}\u{b7}\u{6625}\u{8fd0}\u{5b8c}\u{5168}\u{624b}\u{518c}\""
        )
      ]),
    ParserCase(
      "CHROMIUM0001", received: ["a=b"], sentTo: nil,
      sent: [("a", "b")]),
    ParserCase(
      "CHROMIUM0002", received: ["aBc=\"zzz \"   ;"], sentTo: nil,
      sent: [("aBc", "\"zzz \"")]),
    ParserCase(
      "CHROMIUM0003", received: ["aBc=\"zzz \" ;"], sentTo: nil,
      sent: [("aBc", "\"zzz \"")]),
    ParserCase(
      "CHROMIUM0004", received: ["aBc=\"zz;pp\" ; ;"], sentTo: nil,
      sent: [("aBc", "\"zz")]),
    ParserCase(
      "CHROMIUM0005", received: ["aBc=\"zz ;"], sentTo: nil,
      sent: [("aBc", "\"zz")]),
    ParserCase(
      "CHROMIUM0006", received: ["aBc=\"zzz \"   \"ppp\"  ;"], sentTo: nil,
      sent: [("aBc", "\"zzz \"   \"ppp\"")]),
    ParserCase(
      "CHROMIUM0007", received: ["aBc=\"zzz \"   \"ppp\" ;"], sentTo: nil,
      sent: [("aBc", "\"zzz \"   \"ppp\"")]),
    ParserCase(
      "CHROMIUM0008", received: ["aBc=A\"B ;"], sentTo: nil,
      sent: [("aBc", "A\"B")]),
    ParserCase(
      "CHROMIUM0009", received: ["BLAHHH; path=/;"], sentTo: nil,
      sent: []),
    ParserCase(
      "CHROMIUM0010", received: ["\"BLA\\\"HHH\"; path=/;"], sentTo: nil,
      sent: []),
    ParserCase(
      "CHROMIUM0011", received: ["a=\"B"], sentTo: nil,
      sent: [("a", "\"B")]),
    ParserCase(
      "CHROMIUM0012", received: ["=ABC"], sentTo: nil,
      sent: []),
    ParserCase(
      "CHROMIUM0013", received: ["ABC=;  path = /"], sentTo: nil,
      sent: [("ABC", "")]),
    ParserCase(
      "CHROMIUM0014", received: ["  A  = BC  ;foo;;;   bar"], sentTo: nil,
      sent: [("A", "BC")]),
    ParserCase(
      "CHROMIUM0015", received: ["  A=== BC  ;foo;;;   bar"], sentTo: nil,
      sent: [("A", "== BC")]),
    ParserCase(
      "CHROMIUM0016",
      received: [
        "foo=\"zohNumRKgI0oxyhSsV3Z7D\"  ; expires=Sun, 18-Apr-2027 21:06:29 GMT ; path=/  ;  "
      ], sentTo: nil,
      sent: [("foo", "\"zohNumRKgI0oxyhSsV3Z7D\"")]),
    ParserCase(
      "CHROMIUM0017",
      received: [
        "foo=zohNumRKgI0oxyhSsV3Z7D  ; expires=Sun, 18-Apr-2027 21:06:29 GMT ; path=/  ;  "
      ], sentTo: nil,
      sent: [("foo", "zohNumRKgI0oxyhSsV3Z7D")]),
    ParserCase(
      "CHROMIUM0018", received: ["    "], sentTo: nil,
      sent: []),
    ParserCase(
      "CHROMIUM0019",
      received: [
        "a=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      ], sentTo: nil,
      sent: [
        (
          "a",
          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        )
      ]),
    ParserCase(
      "CHROMIUM0021", received: [""], sentTo: nil,
      sent: []),
    ParserCase(
      "COMMA0001", received: ["foo=bar, baz=qux"], sentTo: nil,
      sent: [("foo", "bar, baz=qux")]),
    ParserCase(
      "COMMA0002", received: ["foo=\"bar, baz=qux\""], sentTo: nil,
      sent: [("foo", "\"bar, baz=qux\"")]),
    ParserCase(
      "COMMA0003", received: ["foo=bar; b,az=qux"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "COMMA0004", received: ["foo=bar; baz=q,ux"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "COMMA0005", received: ["foo=bar; Max-Age=50,399"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "COMMA0006", received: ["foo=bar; Expires=Fri, 07 Aug 2019 08:04:19 GMT"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "COMMA0007", received: ["foo=bar; Expires=Fri 07 Aug 2019 08:04:19 GMT, baz=qux"],
      sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0001", received: ["foo=bar; domain=home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0001",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0002", received: ["foo=bar; domain=home.example.org"],
      sentTo: "http://sibling.example.org:8888/cookie-parser-result?domain0002",
      sent: []),
    ParserCase(
      "DOMAIN0003", received: ["foo=bar; domain=.home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0003",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0004", received: ["foo=bar; domain=home.example.org"],
      sentTo: "http://subdomain.home.example.org:8888/cookie-parser-result?domain0004",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0005", received: ["foo=bar; domain=.home.example.org"],
      sentTo: "http://subdomain.home.example.org:8888/cookie-parser-result?domain0005",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0006", received: ["foo=bar; domain=.home.example.org"],
      sentTo: "http://sibling.example.org:8888/cookie-parser-result?domain0006",
      sent: []),
    ParserCase(
      "DOMAIN0007", received: ["foo=bar; domain=sibling.example.org"],
      sentTo: "http://sibling.example.org:8888/cookie-parser-result?domain0007",
      sent: []),
    ParserCase(
      "DOMAIN0008", received: ["foo=bar; domain=.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0008",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0009", received: ["foo=bar; domain=example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0009",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0010", received: ["foo=bar; domain=..home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0010",
      sent: []),
    ParserCase(
      "DOMAIN0011", received: ["foo=bar; domain=home..example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0011",
      sent: []),
    ParserCase(
      "DOMAIN0012", received: ["foo=bar; domain=  .home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0012",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0013", received: ["foo=bar; domain=  .  home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0013",
      sent: []),
    ParserCase(
      "DOMAIN0014", received: ["foo=bar; domain=home.example.org."],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0014",
      sent: []),
    ParserCase(
      "DOMAIN0015", received: ["foo=bar; domain=home.example.org.."],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0015",
      sent: []),
    ParserCase(
      "DOMAIN0016", received: ["foo=bar; domain=home.example.org ."],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0016",
      sent: []),
    ParserCase(
      "DOMAIN0017", received: ["foo=bar; domain=.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0017",
      sent: []),
    ParserCase(
      "DOMAIN0018", received: ["foo=bar; domain=.org."],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0018",
      sent: []),
    ParserCase(
      "DOMAIN0019",
      received: ["foo=bar; domain=home.example.org", "foo2=bar2; domain=.home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0019",
      sent: [("foo", "bar"), ("foo2", "bar2")]),
    ParserCase(
      "DOMAIN0020",
      received: ["foo2=bar2; domain=.home.example.org", "foo=bar; domain=home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0020",
      sent: [("foo2", "bar2"), ("foo", "bar")]),
    ParserCase(
      "DOMAIN0021", received: ["foo=bar; domain=\"home.example.org\""],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0021",
      sent: []),
    ParserCase(
      "DOMAIN0022",
      received: ["foo=bar; domain=home.example.org", "foo2=bar2; domain=.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0022",
      sent: [("foo", "bar"), ("foo2", "bar2")]),
    ParserCase(
      "DOMAIN0023",
      received: ["foo2=bar2; domain=.example.org", "foo=bar; domain=home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0023",
      sent: [("foo2", "bar2"), ("foo", "bar")]),
    ParserCase(
      "DOMAIN0024", received: ["foo=bar; domain=.example.org; domain=home.example.org"],
      sentTo: "http://sibling.example.org:8888/cookie-parser-result?domain0024",
      sent: []),
    ParserCase(
      "DOMAIN0025", received: ["foo=bar; domain=home.example.org; domain=.example.org"],
      sentTo: "http://sibling.example.org:8888/cookie-parser-result?domain0025",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0026", received: ["foo=bar; domain=home.eXaMpLe.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0026",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0027", received: ["foo=bar; domain=home.example.org:8888"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0027",
      sent: []),
    ParserCase(
      "DOMAIN0028", received: ["foo=bar; domain=subdomain.home.example.org"],
      sentTo: "http://subdomain.home.example.org:8888/cookie-parser-result?domain0028",
      sent: []),
    ParserCase(
      "DOMAIN0029", received: ["foo=bar"],
      sentTo: "http://subdomain.home.example.org:8888/cookie-parser-result?domain0029",
      sent: []),
    ParserCase(
      "DOMAIN0031", received: ["foo=bar; domain=home.example.org; domain=.example.org"],
      sentTo: "http://sibling.example.org:8888/cookie-parser-result?domain0031",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0033", received: ["foo=bar; domain=home.example.org"],
      sentTo: "http://hoMe.eXaMplE.org:8888/cookie-parser-result?domain0033",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0034", received: ["foo=bar; domain=home.example.org; domain=home.example.com"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0034",
      sent: []),
    ParserCase(
      "DOMAIN0035", received: ["foo=bar; domain=home.example.com; domain=home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0035",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0036",
      received: [
        "foo=bar; domain=home.example.org; domain=home.example.com; domain=home.example.org"
      ], sentTo: "http://home.example.org:8888/cookie-parser-result?domain0036",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0037",
      received: [
        "foo=bar; domain=home.example.com; domain=home.example.org; domain=home.example.com"
      ], sentTo: "http://home.example.org:8888/cookie-parser-result?domain0037",
      sent: []),
    ParserCase(
      "DOMAIN0038", received: ["foo=bar; domain=home.example.org; domain=home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0038",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0039", received: ["foo=bar; domain=home.example.org; domain=example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0039",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0040", received: ["foo=bar; domain=example.org; domain=home.example.org"],
      sentTo: "http://home.example.org:8888/cookie-parser-result?domain0040",
      sent: [("foo", "bar")]),
    ParserCase(
      "DOMAIN0041", received: ["foo=bar; domain=.sibling.example.org"],
      sentTo: "http://sibling.example.org:8888/cookie-parser-result?domain0041",
      sent: []),
    ParserCase(
      "DOMAIN0042", received: ["foo=bar; domain=.sibling.home.example.org"],
      sentTo: "http://sibling.home.example.org:8888/cookie-parser-result?domain0042",
      sent: []),
    ParserCase(
      "MOZILLA0001", received: ["foo=bar; max-age=-1"], sentTo: nil,
      sent: []),
    ParserCase(
      "MOZILLA0002", received: ["foo=bar; max-age=0"], sentTo: nil,
      sent: []),
    ParserCase(
      "MOZILLA0003", received: ["foo=bar; expires=Thu, 10 Apr 1980 16:33:12 GMT"], sentTo: nil,
      sent: []),
    ParserCase(
      "MOZILLA0004", received: ["foo=bar; max-age=60"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "MOZILLA0005", received: ["foo=bar; max-age=-20"], sentTo: nil,
      sent: []),
    ParserCase(
      "MOZILLA0006", received: ["foo=bar; max-age=60"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "MOZILLA0007", received: ["foo=bar; expires=Thu, 10 Apr 1980 16:33:12 GMT"], sentTo: nil,
      sent: []),
    ParserCase(
      "MOZILLA0008", received: ["foo=bar; max-age=60", "foo1=bar; max-age=60"], sentTo: nil,
      sent: [("foo", "bar"), ("foo1", "bar")]),
    ParserCase(
      "MOZILLA0009",
      received: ["foo=bar; max-age=60", "foo1=bar; max-age=60", "foo=differentvalue; max-age=0"],
      sentTo: nil,
      sent: [("foo1", "bar")]),
    ParserCase(
      "MOZILLA0010",
      received: [
        "foo=bar; max-age=60", "foo1=bar; max-age=60", "foo=differentvalue; max-age=0",
        "foo2=evendifferentvalue; max-age=0",
      ], sentTo: nil,
      sent: [("foo1", "bar")]),
    ParserCase(
      "MOZILLA0011",
      received: [
        "test=parser; domain=.parser.test; ;; ;=; ,,, ===,abc,=; abracadabra! max-age=20;=;;"
      ], sentTo: nil,
      sent: []),
    ParserCase(
      "MOZILLA0012",
      received: ["test=\"fubar! = foo;bar\\\";\" parser; max-age=6", "five; max-age=2.63,"],
      sentTo: nil,
      sent: [("test", "\"fubar! = foo")]),
    ParserCase(
      "MOZILLA0013", received: ["test=kill; max-age=0", "five; max-age=0"], sentTo: nil,
      sent: []),
    ParserCase(
      "MOZILLA0014", received: ["six"], sentTo: nil,
      sent: []),
    ParserCase(
      "MOZILLA0015", received: ["six", "seven"], sentTo: nil,
      sent: []),
    ParserCase(
      "MOZILLA0016", received: ["six", "seven", " =eight"], sentTo: nil,
      sent: []),
    ParserCase(
      "MOZILLA0017", received: ["six", "seven", " =eight", "test=six"], sentTo: nil,
      sent: [("test", "six")]),
    ParserCase(
      "NAME0001", received: ["a=bar"], sentTo: nil,
      sent: [("a", "bar")]),
    ParserCase(
      "NAME0002", received: ["1=bar"], sentTo: nil,
      sent: [("1", "bar")]),
    ParserCase(
      "NAME0003", received: ["$=bar"], sentTo: nil,
      sent: [("$", "bar")]),
    ParserCase(
      "NAME0004", received: ["!a=bar"], sentTo: nil,
      sent: [("!a", "bar")]),
    ParserCase(
      "NAME0005", received: ["@a=bar"], sentTo: nil,
      sent: [("@a", "bar")]),
    ParserCase(
      "NAME0006", received: ["#a=bar"], sentTo: nil,
      sent: [("#a", "bar")]),
    ParserCase(
      "NAME0007", received: ["$a=bar"], sentTo: nil,
      sent: [("$a", "bar")]),
    ParserCase(
      "NAME0008", received: ["%a=bar"], sentTo: nil,
      sent: [("%a", "bar")]),
    ParserCase(
      "NAME0009", received: ["^a=bar"], sentTo: nil,
      sent: [("^a", "bar")]),
    ParserCase(
      "NAME0010", received: ["&a=bar"], sentTo: nil,
      sent: [("&a", "bar")]),
    ParserCase(
      "NAME0011", received: ["*a=bar"], sentTo: nil,
      sent: [("*a", "bar")]),
    ParserCase(
      "NAME0012", received: ["(a=bar"], sentTo: nil,
      sent: [("(a", "bar")]),
    ParserCase(
      "NAME0013", received: [")a=bar"], sentTo: nil,
      sent: [(")a", "bar")]),
    ParserCase(
      "NAME0014", received: ["-a=bar"], sentTo: nil,
      sent: [("-a", "bar")]),
    ParserCase(
      "NAME0015", received: ["_a=bar"], sentTo: nil,
      sent: [("_a", "bar")]),
    ParserCase(
      "NAME0016", received: ["+=bar"], sentTo: nil,
      sent: [("+", "bar")]),
    ParserCase(
      "NAME0017", received: ["=a=bar"], sentTo: nil,
      sent: []),
    ParserCase(
      "NAME0018", received: ["a =bar"], sentTo: nil,
      sent: [("a", "bar")]),
    ParserCase(
      "NAME0019", received: ["\"a=bar"], sentTo: nil,
      sent: [("\"a", "bar")]),
    ParserCase(
      "NAME0020", received: ["\"a=b\"=bar"], sentTo: nil,
      sent: [("\"a", "b\"=bar")]),
    ParserCase(
      "NAME0021", received: ["\"a=b\"=bar", "\"a=qux"], sentTo: nil,
      sent: [("\"a", "qux")]),
    ParserCase(
      "NAME0022", received: ["   foo=bar"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "NAME0023", received: ["foo;bar=baz"], sentTo: nil,
      sent: []),
    ParserCase(
      "NAME0024", received: ["$Version=1; foo=bar"], sentTo: nil,
      sent: [("$Version", "1")]),
    ParserCase(
      "NAME0025", received: ["===a=bar"], sentTo: nil,
      sent: []),
    ParserCase(
      "NAME0026", received: ["foo=bar    "], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "NAME0027", received: ["foo=bar    ;"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "NAME0028", received: ["=a"], sentTo: nil,
      sent: []),
    ParserCase(
      "NAME0029", received: ["="], sentTo: nil,
      sent: []),
    ParserCase(
      "NAME0030", received: ["foo bar=baz"], sentTo: nil,
      sent: [("foo bar", "baz")]),
    ParserCase(
      "NAME0031", received: ["\"foo;bar\"=baz"], sentTo: nil,
      sent: []),
    ParserCase(
      "NAME0032", received: ["\"foo\\\"bar;baz\"=qux"], sentTo: nil,
      sent: []),
    ParserCase(
      "NAME0033", received: ["=foo=bar", "aaa"], sentTo: nil,
      sent: []),
    ParserCase(
      "OPTIONAL_DOMAIN0030", received: ["foo=bar; domain="],
      sentTo: "http://home.example.org:8888/cookie-parser-result?optional-domain0030",
      sent: [("foo", "bar")]),
    ParserCase(
      "OPTIONAL_DOMAIN0041", received: ["foo=bar; domain=example.org; domain="],
      sentTo: "http://home.example.org:8888/cookie-parser-result?optional-domain0041",
      sent: [("foo", "bar")]),
    ParserCase(
      "OPTIONAL_DOMAIN0042", received: ["foo=bar; domain=foo.example.org; domain="],
      sentTo: "http://home.example.org:8888/cookie-parser-result?optional-domain0042",
      sent: []),
    ParserCase(
      "OPTIONAL_DOMAIN0043", received: ["foo=bar; domain=foo.example.org; domain="],
      sentTo: "http://subdomain.home.example.org:8888/cookie-parser-result?optional-domain0043",
      sent: []),
    ParserCase(
      "ORDERING0001",
      received: [
        "key=val0;", "key=val1; path=/cookie-parser-result", "key=val2; path=/",
        "key=val3; path=/bar", "key=val4; domain=.example.org",
        "key=val5; domain=.example.org; path=/cookie-parser-result/foo",
      ], sentTo: "/cookie-parser-result/foo/baz?ordering0001",
      sent: [("key", "val5"), ("key", "val1"), ("key", "val2"), ("key", "val4")]),
    ParserCase(
      "PATH0001", received: ["a=b; path=/", "x=y; path=/cookie-parser-result"], sentTo: nil,
      sent: [("x", "y"), ("a", "b")]),
    ParserCase(
      "PATH0002", received: ["a=b; path=/cookie-parser-result", "x=y; path=/"], sentTo: nil,
      sent: [("a", "b"), ("x", "y")]),
    ParserCase(
      "PATH0003", received: ["x=y; path=/", "a=b; path=/cookie-parser-result"], sentTo: nil,
      sent: [("a", "b"), ("x", "y")]),
    ParserCase(
      "PATH0004", received: ["x=y; path=/cookie-parser-result", "a=b; path=/"], sentTo: nil,
      sent: [("x", "y"), ("a", "b")]),
    ParserCase(
      "PATH0005", received: ["foo=bar; path=/cookie-parser-result/foo"], sentTo: nil,
      sent: []),
    ParserCase(
      "PATH0006", received: ["foo=bar", "foo=qux; path=/cookie-parser-result/foo"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0007", received: ["foo=bar; path=/cookie-parser-result/foo"],
      sentTo: "/cookie-parser-result/foo?path0007",
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0008", received: ["foo=bar; path=/cookie-parser-result/foo"],
      sentTo: "/cookie-parser-result/bar?path0008",
      sent: []),
    ParserCase(
      "PATH0009", received: ["foo=bar; path=/cookie-parser-result/foo/qux"],
      sentTo: "/cookie-parser-result/foo?path0009",
      sent: []),
    ParserCase(
      "PATH0010", received: ["foo=bar; path=/cookie-parser-result/foo/qux"],
      sentTo: "/cookie-parser-result/foo/qux?path0010",
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0011", received: ["foo=bar; path=/cookie-parser-result/foo/qux"],
      sentTo: "/cookie-parser-result/bar/qux?path0011",
      sent: []),
    ParserCase(
      "PATH0012", received: ["foo=bar; path=/cookie-parser-result/foo/qux"],
      sentTo: "/cookie-parser-result/foo/baz?path0012",
      sent: []),
    ParserCase(
      "PATH0013", received: ["foo=bar; path=/cookie-parser-result/foo/qux/"],
      sentTo: "/cookie-parser-result/foo/baz?path0013",
      sent: []),
    ParserCase(
      "PATH0014", received: ["foo=bar; path=/cookie-parser-result/foo/qux/"],
      sentTo: "/cookie-parser-result/foo/qux?path0014",
      sent: []),
    ParserCase(
      "PATH0015", received: ["foo=bar; path=/cookie-parser-result/foo/qux/"],
      sentTo: "/cookie-parser-result/foo/qux/?path0015",
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0016", received: ["foo=bar; path=/cookie-parser-result/foo/"],
      sentTo: "/cookie-parser-result/foo/qux?path0016",
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0017", received: ["foo=bar; path=/cookie-parser-result/foo/"],
      sentTo: "/cookie-parser-result/foo//qux?path0017",
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0018", received: ["foo=bar; path=/cookie-parser-result/foo/"],
      sentTo: "/cookie-parser-result/fooqux?path0018",
      sent: []),
    ParserCase(
      "PATH0019", received: ["foo=bar; path"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0020", received: ["foo=bar; path="], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0021", received: ["foo=bar; path=/"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0022", received: ["foo=bar; path= /"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0023", received: ["foo=bar; Path=/cookie-PARSER-result"], sentTo: nil,
      sent: []),
    ParserCase(
      "PATH0024", received: ["foo=bar; path=/cookie-parser-result/foo/qux?"],
      sentTo: "/cookie-parser-result/foo/qux?path0024",
      sent: []),
    ParserCase(
      "PATH0025", received: ["foo=bar; path=/cookie-parser-result/foo/qux#"],
      sentTo: "/cookie-parser-result/foo/qux?path0025",
      sent: []),
    ParserCase(
      "PATH0026", received: ["foo=bar; path=/cookie-parser-result/foo/qux;"],
      sentTo: "/cookie-parser-result/foo/qux?path0026",
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0027", received: ["foo=bar; path=\"/cookie-parser-result/foo/qux;\""],
      sentTo: "/cookie-parser-result/foo/qux?path0027",
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0028", received: ["foo=bar; path=/cookie-parser-result/f%6Fo/bar"],
      sentTo: "/cookie-parser-result/foo/bar?path0028",
      sent: []),
    ParserCase(
      "PATH0029",
      received: [
        "a=b; \u{9}path\u{9}=\u{9}/cookie-parser-result\u{9}",
        "x=y; \u{9}path\u{9}=\u{9}/book\u{9}",
      ], sentTo: nil,
      sent: [("a", "b")]),
    ParserCase(
      "PATH0030", received: ["foo=bar; path=/dog; path="], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "PATH0031", received: ["foo=bar; path=; path=/dog"], sentTo: nil,
      sent: []),
    ParserCase(
      "PATH0032",
      received: ["foo=bar; path=/cookie-parser-result", "foo=qux; path=/cookie-parser-result/"],
      sentTo: "/cookie-parser-result/dog?path0032",
      sent: [("foo", "qux"), ("foo", "bar")]),
    ParserCase(
      "VALUE0001", received: ["foo=  bar"], sentTo: nil,
      sent: [("foo", "bar")]),
    ParserCase(
      "VALUE0002", received: ["foo=\"bar\""], sentTo: nil,
      sent: [("foo", "\"bar\"")]),
    ParserCase(
      "VALUE0003", received: ["foo=\"  bar \""], sentTo: nil,
      sent: [("foo", "\"  bar \"")]),
    ParserCase(
      "VALUE0004", received: ["foo=\"bar;baz\""], sentTo: nil,
      sent: [("foo", "\"bar")]),
    ParserCase(
      "VALUE0005", received: ["foo=\"bar=baz\""], sentTo: nil,
      sent: [("foo", "\"bar=baz\"")]),
    ParserCase(
      "VALUE0006", received: ["\u{9}foo\u{9}=\u{9}bar\u{9} \u{9};\u{9}ttt"], sentTo: nil,
      sent: [("foo", "bar")]),
  ]

  /// Expires values and the date each means (an IMF-fixdate), or nil when it is no date.
  static let dates: [(String, String?)] = [
    ("Mon, 10-Dec-2007 17:02:24 GMT", "Mon, 10 Dec 2007 17:02:24 GMT"),
    ("Wed, 09 Dec 2009 16:27:23 GMT", "Wed, 09 Dec 2009 16:27:23 GMT"),
    ("Thursday, 01-Jan-1970 00:00:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT"),
    ("Mon Dec 10 16:32:30 2007 GMT", "Mon, 10 Dec 2007 16:32:30 GMT"),
    ("Wednesday, 01-Jan-10 00:00:00 GMT", "Fri, 01 Jan 2010 00:00:00 GMT"),
    ("Mon, 10-Dec-07 20:35:03 GMT", "Mon, 10 Dec 2007 20:35:03 GMT"),
    ("Wed, 1 Jan 2020 00:00:00 GMT", "Wed, 01 Jan 2020 00:00:00 GMT"),
    ("Saturday, 8-Dec-2012 21:24:09 GMT", "Sat, 08 Dec 2012 21:24:09 GMT"),
    ("Thu, 31 Dec 23:55:55 2037 GMT", "Thu, 31 Dec 2037 23:55:55 GMT"),
    ("Sun,  9 Dec 2012 13:42:05 GMT", "Sun, 09 Dec 2012 13:42:05 GMT"),
    ("Wed Dec 12 2007 08:44:07 GMT-0500 (EST)", "Wed, 12 Dec 2007 08:44:07 GMT"),
    ("Mon, 01-Jan-2011 00: 00:00 GMT", nil),
    ("Sun, 1-Jan-1995 00:00:00 GMT", "Sun, 01 Jan 1995 00:00:00 GMT"),
    ("Wednesday, 01-Jan-10 0:0:00 GMT", "Fri, 01 Jan 2010 00:00:00 GMT"),
    ("Thu, 10 Dec 2009 13:57:2 GMT", "Thu, 10 Dec 2009 13:57:02 GMT"),
    ("Sat, 15-Apr-17 21:01:22 GMT", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Thu, 19-Apr-2007 16:00:00 GMT", "Thu, 19 Apr 2007 16:00:00 GMT"),
    ("Wed, 25 Apr 2007 21:02:13 GMT", "Wed, 25 Apr 2007 21:02:13 GMT"),
    ("Thu, 19/Apr\\2007 16:00:00 GMT", "Thu, 19 Apr 2007 16:00:00 GMT"),
    ("Fri, 1 Jan 2010 01:01:50 GMT", "Fri, 01 Jan 2010 01:01:50 GMT"),
    ("Wednesday, 1-Jan-2003 00:00:00 GMT", "Wed, 01 Jan 2003 00:00:00 GMT"),
    (", 1-Jan-2003 00:00:00 GMT", "Wed, 01 Jan 2003 00:00:00 GMT"),
    (" 1-Jan-2003 00:00:00 GMT", "Wed, 01 Jan 2003 00:00:00 GMT"),
    ("1-Jan-2003 00:00:00 GMT", "Wed, 01 Jan 2003 00:00:00 GMT"),
    ("Wed,18-Apr-07 22:50:12 GMT", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("WillyWonka  , 18-Apr-07 22:50:12 GMT", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("WillyWonka  , 18-Apr-07 22:50:12", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("WillyWonka  ,  18-apr-07   22:50:12", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("Mon, 18-Apr-1977 22:50:13 GMT", "Mon, 18 Apr 1977 22:50:13 GMT"),
    ("Mon, 18-Apr-77 22:50:13 GMT", "Mon, 18 Apr 1977 22:50:13 GMT"),
    ("\"Sat, 15-Apr-17\\\"21:01:22\\\"GMT\"", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Partyday, 18- April-07 22:50:12", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("Partyday, 18 - Apri-07 22:50:12", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("Wednes, 1-Januar-2003 00:00:00 GMT", "Wed, 01 Jan 2003 00:00:00 GMT"),
    ("Sat, 15-Apr-17 21:01:22", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 21:01:22 GMT-2", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 21:01:22 GMT BLAH", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 21:01:22 GMT-0400", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 21:01:22 GMT-0400 (EDT)", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 21:01:22 DST", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 21:01:22 -0400", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 21:01:22 (hello there)", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 21:01:22 11:22:33", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 ::00 21:01:22", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 boink:z 21:01:22", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Sat, 15-Apr-17 91:22:33 21:01:22", nil),
    ("Thu Apr 18 22:50:12 2007 GMT", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("22:50:12 Thu Apr 18 2007 GMT", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("Thu 22:50:12 Apr 18 2007 GMT", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("Thu Apr 22:50:12 18 2007 GMT", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("Thu Apr 18 22:50:12 2007 GMT", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("Thu Apr 18 2007 22:50:12 GMT", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("Thu Apr 18 2007 GMT 22:50:12", "Wed, 18 Apr 2007 22:50:12 GMT"),
    ("Sat, 15-Apr-17 21:01:22 GMT", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("15-Sat, Apr-17 21:01:22 GMT", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("15-Sat, Apr 21:01:22 GMT 17", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("15-Sat, Apr 21:01:22 GMT 2017", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("15 Apr 21:01:22 2017", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("15 17 Apr 21:01:22", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Apr 15 17 21:01:22", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("Apr 15 21:01:22 17", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("2017 April 15 21:01:22", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("15 April 2017 21:01:22", "Sat, 15 Apr 2017 21:01:22 GMT"),
    ("98 April 17 21:01:22", nil),
    ("Thu, 012-Aug-2008 20:49:07 GMT", nil),
    ("Thu, 12-Aug-31841 20:49:07 GMT", nil),
    ("Thu, 12-Aug-9999999999 20:49:07 GMT", nil),
    ("Thu, 999999999999-Aug-2007 20:49:07 GMT", nil),
    ("Thu, 12-Aug-2007 20:61:99999999999 GMT", nil),
    ("IAintNoDateFool", nil),
  ]
}
