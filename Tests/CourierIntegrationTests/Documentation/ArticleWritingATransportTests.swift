import Courier
import CourierTesting
import Foundation
import Testing

/// The "Writing a transport" article's complete transport keeps the whole contract.
@Suite("Writing a transport: a complete transport on one page", .timeLimit(.minutes(2)))
struct ArticleWritingATransportTests {
  @Test("SessionStreamTransport", arguments: TransportConformance.checks)
  func conforms(_ check: TransportConformance.Check) async throws {
    try await check.run(on: SessionStreamTransport())
  }
}

extension ArticleWritingATransportTests {
  @Test("as a hurried user: a client over it sends, downloads with progress, reads half a stream")
  func throughAClient() async throws {
    let server = try LoopbackServer { request, response in
      if request.path == "/endless" {
        try await response.writeHead()
        while !response.isClientDisconnected { try await response.write(Data(count: 64 * 1024)) }
      } else {
        try await response.send(body: Data(count: 1 << 20))
      }
    }
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 2 << 20
    let client = HTTPClient(
      baseURL: server.baseURL, configuration: configuration, transport: SessionStreamTransport())
    #expect(try await client.send(Request<Data>(path: "whole")).count == 1 << 20)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("article-\(UUID())")
    defer { try? FileManager.default.removeItem(at: file) }
    var progress: [Int64] = []
    for try await event in client.download(Request<Data>(path: "file"), to: file) {
      if case .progress(let report) = event { progress.append(report.completedBytes) }
    }
    #expect(progress.last == 1 << 20)
    var read = 0
    for try await chunk in try await client.bytes(Request<Data>(path: "endless")) {
      read += chunk.count
      if read > 256 * 1024 { break }  // and let the stream go
    }
    let tooLarge = await #expect(throws: HTTPError.self) {
      let limited = TransferOptions(maximumBytes: 2 << 20)
      for try await _ in try await client.bytes(Request<Data>(path: "endless"), options: limited) {}
    }
    #expect(tooLarge == .responseTooLarge(limit: 2 << 20))
  }
}

extension ArticleWritingATransportTests {
  @Test("the article shows the transport that passes these checks, word for word")
  func articleMatches() throws {
    let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let source = try String(
      contentsOf: here.appendingPathComponent("SessionStreamTransport.swift"), encoding: .utf8)
    let article = try String(
      contentsOf: here.appendingPathComponent(
        "../../../Sources/Courier/Courier.docc/WritingATransport.md"),
      encoding: .utf8)
    let code = try #require(source.range(of: "/// A complete transport on one page"))
    #expect(article.contains(String(source[code.lowerBound...])))
  }
}
