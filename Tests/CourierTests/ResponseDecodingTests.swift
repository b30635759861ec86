import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Decoding responses")
struct ResponseDecodingTests {
  func send<R: Sendable>(
    _ type: R.Type, _ stub: StubResponse, configuration: HTTPClient.Configuration = .init()
  )
    async throws(HTTPError) -> R
  {
    let transport = StubTransport().on(.get, "/x", stub)
    return try await makeClient(transport: transport, configuration: configuration).send(
      Request<R>(path: "x"))
  }

  @Test("decodes Decodable answers as JSON with the client's decoder")
  func json() async throws {
    let configuration = HTTPClient.Configuration()
    configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
    struct Snake: Decodable, Sendable { var totalPages: Int }
    let value = try await send(
      Snake.self, .json(#"{"total_pages": 7}"#), configuration: configuration)
    #expect(value.totalPages == 7)
  }

  @Test("Data is the raw body, String is UTF-8 text")
  func rawTypes() async throws {
    #expect(try await send(Data.self, StubResponse(body: Data([1, 2, 3]))) == Data([1, 2, 3]))
    #expect(try await send(String.self, StubResponse(text: "héllo")) == "héllo")
  }

  @Test("a body that is not UTF-8 fails to decode as String")
  func invalidText() async throws {
    let error = await #expect(throws: HTTPError.self) {
      try await send(String.self, StubResponse(body: Data([0xC3, 0x28, 0xC0])))
    }
    guard case .decodingFailed(let reason, _) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(reason.contains("UTF-8"))
  }

  /// The charset was ignored: `café` in ISO-8859-1 or any UTF-16 body failed as "not valid
  /// UTF-8", and UTF-16LE without a byte-order mark came back as `h\0i\0`.
  @Test(
    "String answers are read in the charset a byte-order mark or the Content-Type names",
    arguments: [
      ("text/plain; charset=ISO-8859-1", [0x63, 0x61, 0x66, 0xE9], "café"),
      ("text/plain; charset=\"latin1\"", [0x63, 0x61, 0x66, 0xE9], "café"),
      ("text/plain;charset=windows-1252", [0x80, 0x20, 0x93, 0x61, 0x94, 0x81], "€ “a”\u{81}"),
      ("text/plain; charset=us-ascii", [0x68, 0x69], "hi"),
      ("text/plain; format=flowed; charset=utf-16le", [0x68, 0, 0x69, 0], "hi"),
      ("text/plain; charset=UTF-16BE", [0, 0x68, 0, 0xE9], "hé"),
      ("text/plain; charset=utf-16", [0x68, 0, 0x69, 0], "hi"),
      ("text/plain; charset=utf-16", [0xFE, 0xFF, 0, 0x68, 0, 0x69], "hi"),
      ("text/plain", [0xFF, 0xFE, 0x68, 0, 0x69, 0], "hi"),
      ("text/plain; charset=iso-8859-1", [0xEF, 0xBB, 0xBF, 0xC3, 0xA9], "é"),
      ("text/plain; charset=utf-8", [0xEF, 0xBB, 0xBF, 0x68, 0x69], "hi"),
    ] as [(String, [UInt8], String)])
  func charsets(contentType: String, bytes: [UInt8], expected: String) async throws {
    let stub = StubResponse(headers: ["Content-Type": contentType], body: Data(bytes))
    #expect(try await send(String.self, stub) == expected)
    let response = HTTPResponse(
      status: 200, headers: ["Content-Type": contentType], body: Data(bytes))
    #expect(response.text == expected)
  }

  @Test("UTF-8 without a charset, and an unknown charset or broken UTF-16 fails naming it")
  func charsetFailures() async throws {
    #expect(try await send(String.self, StubResponse(text: "héllo")) == "héllo")
    for (contentType, bytes, named) in [
      ("text/plain; charset=shift_jis", [0x68], "shift_jis"),
      ("text/plain; charset=utf-16le", [0x68, 0, 0x69], "UTF-16LE"),
      ("text/plain; charset=utf-16be", [0xD8, 0x00, 0, 0x68], "UTF-16BE"),
    ] as [(String, [UInt8], String)] {
      let error = await #expect(throws: HTTPError.self) {
        try await send(
          String.self, StubResponse(headers: ["Content-Type": contentType], body: Data(bytes)))
      }
      guard case .decodingFailed(let reason, _) = error else {
        Issue.record("\(String(describing: error))")
        continue
      }
      #expect(reason.contains(named), "\(reason)")
    }
  }

  @Test("EmptyResponse ignores any body; an Optional is nil for 204, 205 and empty bodies")
  func emptyBodies() async throws {
    #expect(try await send(EmptyResponse.self, .status(204)) == EmptyResponse())
    #expect(try await send(EmptyResponse.self, StubResponse(text: "ok")) == EmptyResponse())
    #expect(try await send(Movie?.self, .status(204)) == nil)
    #expect(try await send(Movie?.self, .status(205)) == nil)
    #expect(try await send(Movie?.self, .status(200)) == nil)
    #expect(
      try await send(Movie?.self, .json(#"{"id":1,"title":"Up"}"#)) == Movie(id: 1, title: "Up"))
  }

  /// `Movie?` from a body of `null` failed with "null where Dictionary<String, Any> was
  /// expected": the wrapped type was decoded instead of the optional, as JSONDecoder reads it.
  @Test("an Optional Decodable is nil for a JSON null, as JSONDecoder reads it")
  func jsonNull() async throws {
    #expect(try await send(Movie?.self, .json("null")) == nil)
    #expect(try await send(Movie?.self, .json(" null\n")) == nil)
    #expect(try await send([Int]?.self, .json("null")) == nil)
  }

  @Test("a raw Optional takes a body of null as it is, and a null Decodable still fails")
  func jsonNullTwin() async throws {
    #expect(try await send(String?.self, StubResponse(text: "null")) == "null")
    #expect(try await send(Data?.self, .json("null")) == Data("null".utf8))
    #expect(
      try await send(Movie?.self, .json(#"{"id":1,"title":"Up"}"#)) == Movie(id: 1, title: "Up"))
    let error = await #expect(throws: HTTPError.self) { try await send(Movie.self, .json("null")) }
    guard case .decodingFailed(let reason, _) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(reason.contains("null where"), "\(reason)")
  }

  @Test("optionals of raw types decode as the wrapped type when a body is present")
  func optionalRawTypes() async throws {
    #expect(try await send(String?.self, StubResponse(text: "hello")) == "hello")
    #expect(try await send(String?.self, .status(204)) == nil)
    #expect(try await send(Data?.self, StubResponse(body: Data([7]))) == Data([7]))
    #expect(try await send(Data?.self, .status(200)) == nil)
  }

  @Test("a 204 for a non-optional Decodable says what to use instead")
  func emptyForNonOptional() async throws {
    let error = await #expect(throws: HTTPError.self) { try await send(Movie.self, .status(204)) }
    guard case .decodingFailed(let reason, let response) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(reason.contains("EmptyResponse"))
    #expect(response.status == 204)
  }

  @Test("a decoding failure names the failing key and path and keeps the response")
  func failurePath() async throws {
    let body = #"{"page":1,"results":[{"id":1,"title":"A"},{"id":2}]}"#
    let error = await #expect(throws: HTTPError.self) {
      try await send(MoviePage.self, .json(body))
    }
    guard case .decodingFailed(let reason, let response) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(reason.contains("missing key 'title' at results[1].title"), "\(reason)")
    #expect(response.text == body)
  }

  @Test("a type mismatch names the path")
  func typeMismatch() async throws {
    let error = await #expect(throws: HTTPError.self) {
      try await send(MoviePage.self, .json(#"{"page":"one","results":[]}"#))
    }
    guard case .decodingFailed(let reason, _) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(reason.contains("expected Int at page"), "\(reason)")
  }

  @Test("invalid JSON is a decoding failure")
  func invalidJSON() async throws {
    let error = await #expect(throws: HTTPError.self) {
      try await send(MoviePage.self, .json("<html>oops"))
    }
    guard case .decodingFailed = error else {
      Issue.record("\(String(describing: error))")
      return
    }
  }

  @Test("a response type that is not Decodable asks for a decode implementation")
  func notDecodable() async throws {
    struct Opaque: Sendable {}
    let error = await #expect(throws: HTTPError.self) { try await send(Opaque.self, .json("{}")) }
    guard case .decodingFailed(let reason, _) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(reason.contains("implement decode"))
  }

  @Test("an endpoint's own decode is used, and its errors become decodingFailed")
  func customDecode() async throws {
    struct Lines: Endpoint {
      var path: String { "x" }
      func decode(_ response: HTTPResponse, using decoder: JSONDecoder) throws -> [String] {
        guard let text = response.text, !text.isEmpty else { throw CocoaError(.coderReadCorrupt) }
        return text.split(separator: "\n").map(String.init)
      }
    }
    let good = StubTransport().on(.get, "/x", StubResponse(text: "a\nb"))
    #expect(try await makeClient(transport: good).send(Lines()) == ["a", "b"])
    let empty = StubTransport().on(.get, "/x", .status(200))
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: empty).send(Lines())
    }
    guard case .decodingFailed = error else {
      Issue.record("\(String(describing: error))")
      return
    }
  }

  @Test("an HTTPError an endpoint's decode throws reaches the caller as it is")
  func customDecodeThrowsHTTPError() async throws {
    // An API that answers 200 with an error payload: the endpoint says it is a refusal.
    struct Guarded: Endpoint {
      var path: String { "x" }
      func decode(_ response: HTTPResponse, using decoder: JSONDecoder) throws -> String {
        let text = response.text ?? ""
        guard !text.hasPrefix("error:") else { throw HTTPError.unacceptableStatus(response) }
        return text
      }
    }
    let refused = StubTransport().on(.get, "/x", StubResponse(text: "error: no quota"))
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: refused).send(Guarded())
    }
    #expect(error?.response?.text == "error: no quota")
    guard case .unacceptableStatus = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    let good = StubTransport().on(.get, "/x", StubResponse(text: "ok"))
    #expect(try await makeClient(transport: good).send(Guarded()) == "ok")
  }
}
