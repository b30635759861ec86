import Courier
import Foundation
import Testing

@Suite("Encoding query items")
struct QueryEncodingTests {
  func encoded(_ query: Query, _ encoding: QueryEncoding = QueryEncoding()) throws -> String {
    var configuration = HTTPClient.Configuration()
    configuration.queryEncoding = encoding
    let client = makeClient(
      configuration: configuration, baseURL: URL(string: "https://h.example")!)
    let url = try #require(try client.urlRequest(for: Request<Data>(path: "q", query: query)).url)
    return url.query ?? ""
  }

  @Test(
    "encodes every reserved character so the server reads back what was sent",
    arguments: [
      ("a+b", "a%2Bb"),
      ("a&b=c", "a%26b%3Dc"),
      ("a/b?c", "a%2Fb%3Fc"),
      ("two words", "two%20words"),
      ("🎬 Amélie", "%F0%9F%8E%AC%20Am%C3%A9lie"),
      ("100%", "100%25"),
      ("#hash", "%23hash"),
      ("safe-._~", "safe-._~"),
      ("", ""),
    ])
  func reservedCharacters(value: String, expected: String) throws {
    #expect(try encoded(["q": value]) == "q=\(expected)")
  }

  @Test(
    "a number that is not finite, in a query or a form, is refused naming its item; none is sent",
    arguments: [Double.nan, .infinity, -.infinity])
  func nonFinite(value: Double) async {
    let queries: [Query] = [
      ["lat": value], ["lat": Float(value)], ["page": 1, "path": [1.5, value]],
    ]
    for query in queries {
      for request in [
        Request<Data>(path: "q", query: query),
        Request<Data>(method: .post, path: "q", body: .form(query)),
      ] {
        let transport = RefusingTransport()
        let error = await #expect(throws: HTTPError.self) {
          try await makeClient(transport: transport).send(request)
        }
        #expect(error?.invalidRequestReason?.contains("is not a finite number") == true)
        #expect(transport.sentCount == 0)
      }
    }
  }

  @Test("finite numbers go out in their shortest form (the good path beside it)")
  func finiteNumbers() throws {
    #expect(
      try encoded(["a": 1.5, "b": -0.0, "c": Float(0.1), "d": 1e300])
        == "a=1.5&b=-0.0&c=0.1&d=1e%2B300")
  }

  @Test("encodes names as well as values")
  func names() throws {
    #expect(try encoded(["a b&c": "1"]) == "a%20b%26c=1")
  }

  @Test("keeps order and repeated keys")
  func orderAndRepeats() throws {
    var query: Query = ["z": 1, "a": 2]
    query.append("z", 3)
    #expect(try encoded(query) == "z=1&a=2&z=3")
  }

  @Test("leaves out nil optionals and keeps empty strings")
  func optionals() throws {
    let missing: String? = nil
    let present: String? = "x"
    #expect(try encoded(["a": missing, "b": present, "c": ""]) == "b=x&c=")
  }

  @Test("writes arrays in each style")
  func arrays() throws {
    let query: Query = ["ids": [1, 2, 3], "tag": ["a b", "c,d"]]
    #expect(try encoded(query) == "ids=1&ids=2&ids=3&tag=a%20b&tag=c%2Cd")
    #expect(
      try encoded(query, QueryEncoding(arrays: .brackets))
        == "ids%5B%5D=1&ids%5B%5D=2&ids%5B%5D=3&tag%5B%5D=a%20b&tag%5B%5D=c%2Cd")
    #expect(
      try encoded(query, QueryEncoding(arrays: .commaSeparated)) == "ids=1,2,3&tag=a%20b,c%2Cd")
  }

  @Test("an empty array writes nothing")
  func emptyArray() throws {
    let none: [Int] = []
    #expect(try encoded(["ids": none, "page": 1]) == "page=1")
  }

  @Test("writes booleans as literals or numbers")
  func booleans() throws {
    #expect(try encoded(["adult": false, "video": true]) == "adult=false&video=true")
    #expect(
      try encoded(["adult": false, "video": true], QueryEncoding(booleans: .numeric))
        == "adult=0&video=1")
  }

  @Test("writes numbers, UUIDs and raw-value enums")
  func scalarTypes() throws {
    let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    #expect(
      try encoded(["d": 1.5, "i": Int64(-7), "u": id, "s": SortOrder.descending])
        == "d=1.5&i=-7&u=E621E1F8-C36C-495A-93FC-0C247A3E6E5F&s=popularity.desc")
  }
}

enum SortOrder: String, QueryValueConvertible {
  case descending = "popularity.desc"
}
