import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// The size limit of a body read as it comes, and the progress of what is received, are the
/// client's: a transport that only moves bytes — it checks no limit and reports nothing —
/// still gets them right.
@Suite("The client owns the size limit and received progress")
struct ClientOwnedLimitsTests {
  /// A transport that only moves bytes: it answers every request with `head` and hands the
  /// body over as a stream — `chunks` at once, or, when `holdsBody`, nothing ever (a client
  /// that waited for it would never answer) — and tells when the reader stopped the body.
  final class BytesOnlyTransport: HTTPTransport {
    let head: HTTPResponse
    let chunks: [Data]
    let holdsBody: Bool
    /// When set, each chunk after the first waits for an element of it.
    let pace: AsyncStream<Void>?
    let stopped = Signal()
    let held = Locked<[TransportResponseBody.Writer]>([])

    init(
      headers: [String: String], chunks: [Data] = [], status: Int = 200, holdsBody: Bool = false,
      pace: AsyncStream<Void>? = nil
    ) {
      self.pace = pace
      head = HTTPResponse(
        status: status, headers: HTTPHeaders(headers.map { HTTPHeaders.Field(name: $0, value: $1) })
      )
      self.chunks = chunks
      self.holdsBody = holdsBody
    }

    func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
      -> TransportResponse
    {
      let (body, writer) = TransportResponseBody.makeStream(bufferSize: .max) { [stopped] _ in
        stopped.fire()
      }
      if holdsBody {
        held.withLock { $0.append(writer) }
      } else if let pace {
        let chunks = self.chunks
        Task {
          var turns = pace.makeAsyncIterator()
          for (index, chunk) in chunks.enumerated() {
            if index > 0 { _ = await turns.next() }
            try? writer.write(chunk)
          }
          writer.finish()
        }
      } else {
        for chunk in chunks { try writer.write(chunk) }
        writer.finish()
      }
      var head = self.head
      head.url = request.url
      return TransportResponse(head: head, body: body)
    }
  }

  func client(_ transport: any HTTPTransport) -> HTTPClient {
    HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport)
  }

  @Test("a Content-Length over the limit fails a stream and a download before any body moves")
  func announcedOverLimit() async throws {
    let transport = BytesOnlyTransport(headers: ["Content-Length": "5000"], holdsBody: true)
    let client = client(transport)
    let options = TransferOptions(maximumBytes: 1000)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("limit-\(UUID())")
    let streamed = await watched {
      await #expect(throws: HTTPError.responseTooLarge(limit: 1000)) {
        _ = try await client.bytes(Request<Data>(path: "s"), options: options)
      }
    }
    #expect(streamed != nil)
    let downloaded = await watched {
      await #expect(throws: HTTPError.responseTooLarge(limit: 1000)) {
        _ = try await client.download(Request<Data>(path: "d"), to: file, options: options)
          .finished()
      }
    }
    #expect(downloaded != nil)
    #expect(await watched { await transport.stopped.wait() } != nil)
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }

  @Test("a HEAD answer's Content-Length and a 304's are not bodies, and pass any limit")
  func announcedWithoutBody() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 1000
    let head = BytesOnlyTransport(headers: ["Content-Length": "5000"])
    let answer = try await HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: configuration, transport: head
    ).send(Request<Data>(method: .head, path: "h"))
    #expect(answer.isEmpty)
    let notModified = BytesOnlyTransport(headers: ["Content-Length": "5000"], status: 304)
    let error = await #expect(throws: HTTPError.self) {
      _ = try await client(notModified).bytes(
        Request<Data>(path: "n"), options: TransferOptions(maximumBytes: 1000))
    }
    guard case .unacceptableStatus(let response) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(response.status == 304)
  }

  @Test("a download's progress is counted as the file is written, to its announced length")
  func receivedProgress() async throws {
    // Past the download's reporting step (256 KiB), so that each chunk is reported.
    let chunk = 300 * 1024
    let (pace, turn) = AsyncStream<Void>.makeStream()
    let transport = BytesOnlyTransport(
      headers: ["Content-Length": "\(3 * chunk)"],
      chunks: Array(repeating: Data(count: chunk), count: 3),
      pace: pace)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("prog-\(UUID())")
    defer { try? FileManager.default.removeItem(at: file) }
    let download = client(transport).download(Request<Data>(path: "d"), to: file)
    // Without a report of each chunk, the next never comes: the watchdog fails the test.
    let reports =
      await watched { () -> [TransferProgress] in
        var reports: [TransferProgress] = []
        do {
          for try await event in download {
            guard case .progress(let progress) = event else { continue }
            reports.append(progress)
            turn.yield()  // the next chunk comes once this one is reported
          }
        } catch {
          Issue.record(error)
        }
        return reports
      } ?? []
    #expect(reports.map(\.completedBytes) == [1, 2, 3].map { Int64($0 * chunk) })
    #expect(reports.allSatisfy { $0.expectedBytes == Int64(3 * chunk) })
  }

  @Test("a gzip body's Content-Length is not its length: no progress total, no early refusal")
  func encodedLength() async throws {
    let transport = BytesOnlyTransport(
      headers: ["Content-Length": "5000", "Content-Encoding": "gzip"], chunks: [Data(count: 800)])
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("gz-\(UUID())")
    defer { try? FileManager.default.removeItem(at: file) }
    var reports: [TransferProgress] = []
    let download = client(transport).download(
      Request<Data>(path: "d"), to: file, options: TransferOptions(maximumBytes: 1000))
    for try await event in download {
      if case .progress(let progress) = event { reports.append(progress) }
    }
    #expect(reports.map(\.completedBytes) == [800])
    #expect(reports.first?.expectedBytes == nil)
  }

  /// A transport that writes 600 bytes, then waits for the test, then writes 600-byte chunks
  /// until the body refuses one (at most 100), and says how many it wrote and what stopped it.
  final class EndlessTransport: HTTPTransport {
    let (go, resume) = AsyncStream<Void>.makeStream()
    let (outcome, report) = AsyncStream<(Int, HTTPError?)>.makeStream()

    func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
      -> TransportResponse
    {
      let (body, writer) = TransportResponseBody.makeStream(bufferSize: .max) { _ in }
      try writer.write(Data(count: 600))
      let (go, report) = (go, report)
      Task {
        for await _ in go { break }
        var written = 600
        for _ in 0..<100 {
          do throws(HTTPError) {
            try writer.write(Data(count: 600))
            written += 600
          } catch {
            report.yield((written, error))
            return
          }
        }
        report.yield((written, nil))
      }
      return TransportResponse(
        head: HTTPResponse(status: 200, headers: [:], url: request.head.url), body: body)
    }
  }

  @Test("a stream past the limit is refused at the transport's side, before its reader reads")
  func refusedBeforeRead() async throws {
    let transport = EndlessTransport()
    let stream = try await client(transport).bytes(
      Request<Data>(path: "s"), options: TransferOptions(maximumBytes: 1000))
    transport.resume.yield()
    var outcomes = transport.outcome.makeAsyncIterator()
    let outcome = await outcomes.next()
    // A transport that cannot pause (URLSession on Linux) would spool the rest to disk.
    #expect(outcome?.0 == 600)
    #expect(outcome?.1 == .responseTooLarge(limit: 1000))
    var read = 0
    await #expect(throws: HTTPError.responseTooLarge(limit: 1000)) {
      for try await chunk in stream { read += chunk.count }
    }
    #expect(read == 600)
  }
}
