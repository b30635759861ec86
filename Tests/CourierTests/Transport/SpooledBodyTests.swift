import Foundation
import Testing

@testable import Courier

@Suite("A body spooled to disk by a transport")
struct SpooledBodyTests {
  private func spool(_ content: Data) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-spool-test-\(UUID().uuidString)")
    try content.write(to: url)
    return url
  }

  @Test("is read whole, in chunks, and its file deleted when the last copy goes")
  func readAndDeleted() async throws {
    let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
    let url = try spool(content)
    var body: TransportResponseBody? = TransportResponseBody(spooledFile: url)
    var chunks = 0
    var read = Data()
    for try await chunk in body! {
      chunks += 1
      read.append(chunk)
    }
    #expect(read == content)
    #expect(chunks > 1)
    #expect(FileManager.default.fileExists(atPath: url.path))
    body = nil
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }

  @Test("over the reader's limit fails with responseTooLarge, and is deleted unread too")
  func limited() async throws {
    let url = try spool(Data(count: 100_000))
    var body: TransportResponseBody? = TransportResponseBody(spooledFile: url)
    await #expect(throws: HTTPError.responseTooLarge(limit: 1_000)) {
      try await body!.collect(upTo: 1_000)
    }
    body = nil
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }
}
