import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("A client in a dump", .timeLimit(.minutes(1)))
struct ClientDumpTests {
  /// A dump of a client while another request is in flight on its transport: its base URL's
  /// user-info, the other request's credentials, and the transport's live state (read without
  /// its locks, a race that crashed a process) are not in it.
  @Test(
    "a dump of a client shows its base URL redacted and nothing of its transport's live state",
    arguments: ["default", "urlsession"])
  func dumped(transportName: String) async throws {
    let started = Signal()
    let server = try LoopbackServer { _, response in
      started.fire()
      await response.clientDisconnected()
    }
    defer { server.stop() }
    let transport: (any HTTPTransport)? =
      transportName == "urlsession" ? URLSessionTransport() : nil
    var configuration = HTTPClient.Configuration()
    configuration.headers = ["Authorization": "Bearer auth-SECRET"]
    configuration.redactedNames = ["sid"]
    let base = try #require(
      URL(string: "http://user-SECRET:pass-SECRET@127.0.0.1:\(server.port)/3?sid=sid-SECRET"))
    let client = HTTPClient(baseURL: base, configuration: configuration, transport: transport)
    let request = Task {
      try await client.send(Request<Data>(path: "x", query: ["api_key": "apikey-SECRET"]))
    }
    await started.wait()
    var dumped = ""
    dump(client, to: &dumped)
    request.cancel()
    _ = await request.result
    let leaks = dumped.split(separator: "\n").filter { $0.contains("SECRET") }
    #expect(leaks.isEmpty, "\(leaks.prefix(3))")
    #expect(dumped.contains("http://<redacted>@127.0.0.1:\(server.port)/3?sid=<redacted>"))
    #expect(!dumped.contains("taskRegistry") && !dumped.contains("driver"))
    // What the client is set up to do is there.
    #expect(dumped.contains("maximumResponseBytes"))
  }
}
