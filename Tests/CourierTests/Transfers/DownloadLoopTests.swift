import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("Breaking out of a download's loop")
struct DownloadLoopTests {
  /// Holds a failure on its way back to the download until `release` opens, then fires
  /// `passed`: the download's own clean-up, which runs once the failure is back, waits for it.
  struct HoldingFailures: Middleware {
    let release: Gate
    let passed: Signal

    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      do throws(HTTPError) {
        return try await next(request)
      } catch {
        await release.wait()
        passed.fire()
        throw error
      }
    }
  }

  /// A client whose server sends 300 KB of a 1 MB body (with a validator), then holds the
  /// rest until the client goes; failures are held by `HoldingFailures`.
  func client(release: Gate, passed: Signal) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [HoldingFailures(release: release, passed: passed)]
    let stub = StubTransport().serving { _, response in
      try await response.writeHead(headers: ["ETag": "\"v1\""], contentLength: 1_000_000)
      try await response.write(Data(repeating: 7, count: 300_000))
      await response.clientDisconnected()
    }
    return makeClient(transport: stub, configuration: configuration)
  }

  func contents(of directory: URL) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? ["(unreadable)"]
  }

  func makeDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("courier-loop-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    return directory
  }

  @Test("leaves no partial file by the time the loop's next line runs")
  func breakLeavesNoFile() async throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (release, passed) = (Gate(), Signal())
    let download = client(release: release, passed: passed).download(
      Request<Data>(path: "f"), to: directory.appendingPathComponent("f"))
    for try await event in download {
      if case .progress = event { break }
    }
    #expect(contents(of: directory).isEmpty)
    release.open()
    await watched { await passed.wait() }
    #expect(contents(of: directory).isEmpty)
  }

  @Test("keeps the partial file for resume data when the download asks for it")
  func breakKeepsResumeData() async throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (release, passed, handed) = (Gate(), Signal(), Signal())
    let kept = Locked<DownloadResumeData?>(nil)
    let options = TransferOptions(
      maximumResumeAttempts: 0,
      resumeData: { data in
        kept.withLock { $0 = data }
        handed.fire()
      })
    let download = client(release: release, passed: passed).download(
      Request<Data>(path: "f"), to: directory.appendingPathComponent("f"), options: options)
    for try await event in download {
      if case .progress = event { break }
    }
    #expect(contents(of: directory).count == 1)
    release.open()
    await watched { await handed.wait() }
    let data = try #require(kept.withLock { $0 })
    #expect(FileManager.default.fileExists(atPath: data.partialFile.path))
    #expect(data.bytes > 0 && data.validator == "\"v1\"")
  }

  @Test("the same download value runs again after a loop broke out of it")
  func runsAgain() async throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let requests = Locked(0)
    let stub = StubTransport().serving { _, response in
      let number = requests.withLock {
        $0 += 1
        return $0
      }
      guard number == 1 else {
        return try await response.send(body: Data(repeating: 8, count: 1000))
      }
      try await response.writeHead(contentLength: 1_000_000)
      try await response.write(Data(repeating: 7, count: 300_000))
      await response.clientDisconnected()
    }
    let download = makeClient(transport: stub).download(
      Request<Data>(path: "f"), to: directory.appendingPathComponent("f"))
    for try await event in download {
      if case .progress = event { break }
    }
    let file = try await download.finished()
    #expect(try Data(contentsOf: file.url) == Data(repeating: 8, count: 1000))
    #expect(contents(of: directory) == ["f"])
  }
}
