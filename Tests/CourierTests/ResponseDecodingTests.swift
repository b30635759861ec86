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
      try await send(String.self, StubResponse(body: Data([0xFF, 0xFE, 0xC0])))
    }
    guard case .decodingFailed(let reason, _) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(reason.contains("UTF-8"))
  }

  @Test("EmptyResponse ignores any body; an Optional is nil for 204 and empty bodies")
  func emptyBodies() async throws {
    #expect(try await send(EmptyResponse.self, .status(204)) == EmptyResponse())
    #expect(try await send(EmptyResponse.self, StubResponse(text: "ok")) == EmptyResponse())
    #expect(try await send(Movie?.self, .status(204)) == nil)
    #expect(try await send(Movie?.self, .status(200)) == nil)
    #expect(
      try await send(Movie?.self, .json(#"{"id":1,"title":"Up"}"#)) == Movie(id: 1, title: "Up"))
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
}
