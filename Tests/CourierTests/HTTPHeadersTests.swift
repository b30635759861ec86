import Courier
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
  @Test("reads names case-insensitively and keeps the order fields were added")
  func caseInsensitiveOrdered() {
    var headers: HTTPHeaders = ["Content-Type": "application/json", "X-B": "2"]
    headers.add("x-a", "1")
    #expect(headers["content-type"] == "application/json")
    #expect(headers["CONTENT-TYPE"] == "application/json")
    #expect(headers.fields.map(\.name) == ["Content-Type", "X-B", "x-a"])
    #expect(headers.contains("X-A"))
    #expect(!headers.contains("X-C"))
  }

  @Test("setting replaces every field of that name in place of the first; nil removes")
  func subscriptSet() {
    var headers = HTTPHeaders()
    headers.add("Accept", "a")
    headers.add("X", "1")
    headers.add("accept", "b")
    headers["ACCEPT"] = "c"
    #expect(headers.fields == [.init(name: "Accept", value: "c"), .init(name: "X", value: "1")])
    headers["accept"] = nil
    #expect(headers.fields == [.init(name: "X", value: "1")])
  }

  @Test("keeps repeated fields and lists their values")
  func repeated() {
    var headers = HTTPHeaders()
    headers.add("Set-Cookie", "a=1")
    headers.add("set-cookie", "b=2")
    #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
    #expect(headers.count == 2)
  }

  @Test("merging lets the other side's names win and keeps the rest in order")
  func merging() {
    let defaults: HTTPHeaders = ["Accept": "a", "X-Client": "c", "Accept-Language": "en"]
    let merged = defaults.merging(["accept-language": "fr", "X-New": "n"])
    #expect(
      merged.fields.map { "\($0.name)=\($0.value)" } == [
        "Accept=a", "X-Client=c", "accept-language=fr", "X-New=n",
      ])
  }

  @Test("names with the same letters in another case are equal; values are not")
  func equality() {
    #expect(HTTPHeaders(["A": "x"]) == HTTPHeaders(["a": "x"]))
    #expect(HTTPHeaders(["A": "x"]) != HTTPHeaders(["a": "X"]))
    #expect(HTTPHeaders(["A": "x"]) != HTTPHeaders(["AB": "x"]))
  }

  @Test("the description redacts credentials")
  func redactedDescription() {
    let headers: HTTPHeaders = [
      "Authorization": "Bearer secret", "cookie": "session=secret", "X-API-Key": "secret",
      "Accept": "application/json",
    ]
    #expect(!headers.description.contains("secret"))
    #expect(headers.description.contains("Authorization: <redacted>"))
    #expect(headers.description.contains("Accept: application/json"))
  }
}

extension HTTPHeaders {
  fileprivate init(_ pairs: KeyValuePairs<String, String>) {
    self.init(pairs.map { Field(name: $0.key, value: $0.value) })
  }
}
