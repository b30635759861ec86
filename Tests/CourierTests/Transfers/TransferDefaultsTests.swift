import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// What TransfersAndStreaming and ``TransferOptions`` promise by default: a transfer sends
/// nothing until its loop asks for the first event, and the size limit is none for a
/// download or a byte stream's chunks, the client's for an upload's answer.
@Suite("Transfers by default")
struct TransferDefaultsTests {
  /// 100,000 bytes, in chunks.
  static let big = Data(repeating: 1, count: 100_000)

  /// A client whose `maximumResponseBytes` is 1,000, over `stub`.
  func client(_ stub: StubTransport) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 1000
    return makeClient(transport: stub, configuration: configuration)
  }

  func scratchFile() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("defaults-\(UUID())")
  }

  @Test("a download or an upload sends nothing until its loop asks for the first event")
  func lazy() async throws {
    let stub = StubTransport()
      .on(.get, "/file", StubResponse(body: Data("abc".utf8)))
      .on(.put, "/up", .status(204))
    let client = makeClient(transport: stub)
    let file = scratchFile()
    defer { try? FileManager.default.removeItem(at: file) }
    let download = client.download(Request<Data>(path: "file"), to: file)
    let upload = client.upload(
      Request<EmptyResponse>(method: .put, path: "up", body: .data(Data("abc".utf8))))
    #expect(stub.requests.isEmpty)
    var downloadEvents = 0
    for try await _ in download { downloadEvents += 1 }
    #expect(stub.requests.count == 1)
    var uploadEvents = 0
    for try await _ in upload { uploadEvents += 1 }
    #expect(stub.requests.count == 2)
    // Every event reached its loop: the progress, and the end.
    #expect(downloadEvents >= 2 && uploadEvents >= 2)
  }

  @Test("a download and a byte stream's chunks are not held to the client's maximumResponseBytes")
  func noLimitByDefault() async throws {
    let stub = StubTransport()
      .on(.get, "/big", .chunks([Self.big.prefix(600), Self.big.dropFirst(600)]))
    let client = client(stub)
    var count = 0
    for try await chunk in try await client.bytes(Request<Data>(path: "big")) {
      count += chunk.count
    }
    #expect(count == Self.big.count)
    let file = scratchFile()
    defer { try? FileManager.default.removeItem(at: file) }
    _ = try await client.download(Request<Data>(path: "big"), to: file).finished()
    #expect(try Data(contentsOf: file) == Self.big)
  }

  @Test("an upload's answer is held to the client's maximumResponseBytes")
  func uploadAnswerLimited() async throws {
    let stub = StubTransport().on(.post, "/big", StubResponse(body: Self.big))
    let error = await #expect(throws: HTTPError.self) {
      _ = try await client(stub).upload(
        Request<Data>(method: .post, path: "big", body: .data(Data("x".utf8)))
      ).finished()
    }
    #expect(error == .responseTooLarge(limit: 1000))
  }
}
