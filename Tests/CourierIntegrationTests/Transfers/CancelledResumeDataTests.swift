import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// ``TransferOptions/resumeData`` "receives the resume data of a download that failed or was
/// cancelled after part of its body reached the disk": a cancelled download, on every transport.
@Suite("Resume data of a cancelled download", .timeLimit(.minutes(1)))
struct CancelledResumeDataTests {
  @Test("a download cancelled part-way hands over its resume data, and it finishes the file")
  func cancelledGivesResumeData() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(1_000_000)
    let server = try LoopbackServer { request, response in
      if let range = request.headers["Range"] {
        // bytes=N-
        let start = Int(range.dropFirst("bytes=".count).dropLast()) ?? 0
        try await response.send(
          status: 206,
          headers: [
            "ETag": "\"v1\"", "Content-Range": "bytes \(start)-\(body.count - 1)/\(body.count)",
          ],
          body: body.subdata(in: start..<body.count))
        return
      }
      try await response.writeHead(headers: ["ETag": "\"v1\""], contentLength: body.count)
      try await response.write(body.prefix(100_000))
      await response.clientDisconnected()
    }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let kept = Locked<DownloadResumeData?>(nil)
    let options = TransferOptions(resumeData: { data in kept.withLock { $0 = data } })
    let onDisk = Signal()
    let task = Task {
      for try await event in client.download(
        Request<Data>(path: "f"), to: scratch.file("f"), options: options)
      {
        if case .progress(let progress) = event, progress.completedBytes > 0 { onDisk.fire() }
      }
    }
    await watched { await onDisk.wait() }
    task.cancel()
    await expectCancelled(task)
    let data = try #require(kept.withLock { $0 }, "no resume data for a cancelled download")
    #expect(data.bytes > 0 && data.bytes <= 100_000)
    #expect(data.validator == "\"v1\"")
    let file = try await client.download(
      Request<Data>(path: "f"), to: scratch.file("f"), resumingFrom: data
    ).finished()
    #expect(try Data(contentsOf: file.url) == body)
  }
}
