import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Building requests from endpoints")
struct RequestBuilderTests {
  @Test("an enum endpoint becomes a GET with its query and JSON Accept")
  func enumEndpoint() throws {
    let request = try makeClient().urlRequest(for: MovieApi.search(text: "a+b c", adult: false))
    #expect(request.httpMethod == "GET")
    #expect(
      request.url?.absoluteString
        == "https://api.example.com/3/search/movie?query=a%2Bb%20c&include_adult=false")
    #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
    #expect(request.httpBody == nil)
  }

  @Test("Accept is JSON only for Decodable answers other than Data, String and EmptyResponse")
  func acceptByResponseType() throws {
    let client = makeClient()
    #expect(
      try client.urlRequest(for: Request<Movie>(path: "m")).value(forHTTPHeaderField: "Accept")
        == "application/json")
    #expect(
      try client.urlRequest(for: Request<[Movie]?>(path: "m")).value(forHTTPHeaderField: "Accept")
        == "application/json")
    #expect(
      try client.urlRequest(for: Request<Data>(path: "m")).value(forHTTPHeaderField: "Accept")
        == nil)
    #expect(
      try client.urlRequest(for: Request<String>(path: "m")).value(forHTTPHeaderField: "Accept")
        == nil)
    #expect(
      try client.urlRequest(for: Request<String?>(path: "m")).value(forHTTPHeaderField: "Accept")
        == nil)
    #expect(
      try client.urlRequest(for: Request<EmptyResponse>(path: "m")).value(
        forHTTPHeaderField: "Accept") == nil)
  }

  @Test("endpoint headers win over the client's defaults, names compared case-insensitively")
  func headerMerge() throws {
    var configuration = HTTPClient.Configuration()
    configuration.headers = ["X-Client": "tests", "accept": "text/plain", "Accept-Language": "en"]
    let client = makeClient(configuration: configuration)
    let endpoint = Request<Movie>(path: "m", headers: ["ACCEPT-LANGUAGE": "fr", "X-Extra": "1"])
    let request = try client.urlRequest(for: endpoint)
    #expect(request.value(forHTTPHeaderField: "X-Client") == "tests")
    #expect(request.value(forHTTPHeaderField: "Accept-Language") == "fr")
    #expect(request.value(forHTTPHeaderField: "X-Extra") == "1")
    #expect(request.value(forHTTPHeaderField: "Accept") == "text/plain")
  }

  @Test("a JSON body is encoded with the client's encoder and sets Content-Type")
  func jsonBody() throws {
    let configuration = HTTPClient.Configuration()
    configuration.encoder.outputFormatting = .sortedKeys
    let endpoint = Request<EmptyResponse>(
      method: .post, path: "movie/1/rating", body: .json(["value": 8.5, "a": 1]))
    let request = try makeClient(configuration: configuration).urlRequest(for: endpoint)
    #expect(request.httpMethod == "POST")
    #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == #"{"a":1,"value":8.5}"#)
  }

  @Test("a body's own encoder wins over the client's")
  func bodyEncoder() throws {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    struct Payload: Encodable, Sendable { var mediaType = "movie" }
    let endpoint = Request<Data>(method: .post, path: "x", body: .json(Payload(), encoder: encoder))
    let request = try makeClient().urlRequest(for: endpoint)
    #expect(
      request.httpBody.map { String(decoding: $0, as: UTF8.self) } == #"{"media_type":"movie"}"#)
  }

  @Test("a form body is percent-encoded like a query")
  func formBody() throws {
    let endpoint = Request<Data>(
      method: .post, path: "login",
      body: .form(["user": "a b", "password": "p&ss=+", "keep": true]))
    let request = try makeClient().urlRequest(for: endpoint)
    #expect(
      request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    #expect(
      request.httpBody.map { String(decoding: $0, as: UTF8.self) }
        == "user=a%20b&password=p%26ss%3D%2B&keep=true")
  }

  @Test("a data body keeps its bytes, and an explicit Content-Type header wins")
  func dataBody() throws {
    let bytes = Data([0, 1, 2, 255])
    let plain = Request<Data>(
      method: .put, path: "blob", body: .data(bytes, contentType: "image/png"))
    let request = try makeClient().urlRequest(for: plain)
    #expect(request.httpBody == bytes)
    #expect(request.value(forHTTPHeaderField: "Content-Type") == "image/png")

    let overridden = Request<Data>(
      method: .put, path: "blob", headers: ["content-type": "image/webp"],
      body: .data(bytes, contentType: "image/png"))
    #expect(
      try makeClient().urlRequest(for: overridden).value(forHTTPHeaderField: "Content-Type")
        == "image/webp")
  }

  @Test("the body's Content-Type wins over the client's default, the endpoint's over both")
  func contentTypePrecedence() throws {
    var configuration = HTTPClient.Configuration()
    configuration.headers["Content-Type"] = "application/json"
    let client = makeClient(configuration: configuration)
    let form = Request<Data>(method: .post, path: "login", body: .form(["user": "a"]))
    #expect(
      try client.urlRequest(for: form).value(forHTTPHeaderField: "Content-Type")
        == "application/x-www-form-urlencoded")
    let bodiless = Request<Data>(method: .post, path: "ping")
    #expect(
      try client.urlRequest(for: bodiless).value(forHTTPHeaderField: "Content-Type")
        == "application/json")
    let explicit = Request<Data>(
      method: .post, path: "login", headers: ["Content-Type": "text/plain"],
      body: .form(["user": "a"]))
    #expect(
      try client.urlRequest(for: explicit).value(forHTTPHeaderField: "Content-Type") == "text/plain"
    )
  }

  @Test("default credentials go only to the base URL's origin; other defaults go everywhere")
  func defaultCredentialsStayHome() throws {
    var configuration = HTTPClient.Configuration()
    configuration.headers = ["Authorization": "Bearer t", "X-Tenant": "acme", "User-Agent": "ua"]
    configuration.redactedNames = ["x-tenant"]
    let client = makeClient(configuration: configuration)
    let home = try client.urlRequest(for: Request<Data>(path: "https://api.example.com:443/x"))
    #expect(home.value(forHTTPHeaderField: "Authorization") == "Bearer t")
    let away = try client.urlRequest(for: Request<Data>(path: "https://cdn.example.net/x"))
    #expect(away.value(forHTTPHeaderField: "Authorization") == nil)
    #expect(away.value(forHTTPHeaderField: "X-Tenant") == nil)
    #expect(away.value(forHTTPHeaderField: "User-Agent") == "ua")
    let explicit = try client.urlRequest(
      for: Request<Data>(
        path: "https://cdn.example.net/x", headers: ["Authorization": "Bearer cdn"]))
    #expect(explicit.value(forHTTPHeaderField: "Authorization") == "Bearer cdn")
  }

  @Test("the timeout reaches URLSession as a whole-second backstop, never below the deadline")
  func timeoutBackstop() throws {
    let client = makeClient()
    #expect(
      try client.urlRequest(for: Request<Data>(path: "x", timeout: .milliseconds(200)))
        .timeoutInterval == 1)
    #expect(
      try client.urlRequest(for: Request<Data>(path: "x", timeout: .milliseconds(2500)))
        .timeoutInterval == 3)
    #expect(try client.urlRequest(for: Request<Data>(path: "x")).timeoutInterval == 60)
  }

  @Test("a timeout too long for FoundationNetworking's milliseconds reaches it cut to 34 years")
  func longestBackstop() throws {
    let client = makeClient()
    for timeout in [Duration.seconds(Int64.max), .seconds(1e16)] {
      let request = try client.urlRequest(for: Request<Data>(path: "x", timeout: timeout))
      #expect(request.timeoutInterval == TimeInterval(1 << 30))  // about 34 years
    }
    let year = try client.urlRequest(for: Request<Data>(path: "x", timeout: .seconds(31_536_000)))
    #expect(year.timeoutInterval == 31_536_000)  // the good path: a long one is kept
  }

  // MARK: - Bad input: a clear error and nothing sent

  @Test(
    "a header with CR, LF or a bad name is an invalid request naming the header",
    arguments: [
      (["X-Token": "abc\r\nInjected: yes"] as HTTPHeaders, "X-Token"),
      (["X-Token": "abc\ndef"] as HTTPHeaders, "CR or LF"),
      (["X-Bell": "a\u{7}b"] as HTTPHeaders, "control character"),
      (["Bad Name": "x"] as HTTPHeaders, "Bad Name"),
      (["X-Evil\r\n": "x"] as HTTPHeaders, "not a valid HTTP token"),
      (["": "x"] as HTTPHeaders, "not a valid HTTP token"),
    ])
  func badHeaders(headers: HTTPHeaders, expected: String) async throws {
    let transport = RefusingTransport()
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: transport).send(Request<Data>(path: "x", headers: headers))
    }
    let reason = try #require(error?.invalidRequestReason)
    #expect(reason.contains(expected), "\(reason)")
    #expect(!reason.contains("abc"), "the header value is not repeated in the error")
    #expect(transport.sentCount == 0)
  }

  @Test("a default header with CR/LF is rejected too")
  func badDefaultHeader() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.headers["Authorization"] = "Bearer x\r\nX: y"
    let transport = RefusingTransport()
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: transport, configuration: configuration).send(
        Request<Data>(path: "x"))
    }
    #expect(error?.invalidRequestReason?.contains("Authorization") == true)
    #expect(transport.sentCount == 0)
  }

  @Test("a JSON body that cannot be encoded (NaN) is an invalid request naming the path")
  func nanBody() async throws {
    let transport = RefusingTransport()
    let endpoint = Request<Data>(method: .post, path: "rate", body: .json(Rating(value: .nan)))
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: transport).send(endpoint)
    }
    let reason = try #require(error?.invalidRequestReason)
    #expect(reason.contains("JSON body"))
    #expect(reason.contains("value"), "\(reason)")
    #expect(transport.sentCount == 0)
  }

  @Test("a GET or HEAD with a body is an invalid request; the same body on POST is fine")
  func bodyOnGet() async throws {
    for method in [HTTPMethod.get, .head] {
      let transport = RefusingTransport()
      let error = await #expect(throws: HTTPError.self) {
        try await makeClient(transport: transport).send(
          Request<Data>(method: method, path: "x", body: .json(["a": 1])))
      }
      #expect(error?.invalidRequestReason?.contains("cannot carry a body") == true)
      #expect(transport.sentCount == 0)
    }
    let post = try makeClient().urlRequest(
      for: Request<Data>(method: .post, path: "x", body: .json(["a": 1])))
    #expect(post.httpBody != nil)
  }

  @Test("a method that is not a token is an invalid request")
  func badMethod() async throws {
    let transport = RefusingTransport()
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: transport).send(
        Request<Data>(method: "GET /x HTTP/1.1\r\n", path: "x"))
    }
    #expect(error?.invalidRequestReason?.contains("method") == true)
    #expect(transport.sentCount == 0)
  }

  @Test("a good request built the same way does reach the transport")
  func goodRequestIsSent() async throws {
    let transport = RefusingTransport()
    await #expect(throws: HTTPError.self) {
      try await makeClient(transport: transport).send(
        Request<Data>(path: "x", headers: ["X-Token": "abc"]))
    }
    #expect(transport.sentCount == 1)
  }
}
