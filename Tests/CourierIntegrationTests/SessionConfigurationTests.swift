import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("URLSessionTransport's session configurations", .timeLimit(.minutes(1)))
struct SessionConfigurationTests {
  @Test("a transport whose session was invalidated refuses requests, sending none, not crashing")
  func invalidatedSession() async throws {
    let loopback = try Loopback { _, response in try await response.send(json: "{}") }
    defer { loopback.stop() }
    let transport = URLSessionTransport()
    let client = HTTPClient(baseURL: loopback.server.baseURL, transport: transport)
    _ = try await client.send(Request<Data>(path: "ok"))
    // As code at sign-out would, through the public session. No task may be made on the
    // session from here on: FoundationNetworking stops the process, Apple platforms raise.
    transport.session.finishTasksAndInvalidate()
    // The platform says so on the delegate's queue: wait for that, not for a time.
    let told = await watched {
      while !transport.delegate.isInvalidated { await Task.yield() }
      return true
    }
    try #require(told == true)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "after"))
    }
    #expect(error?.invalidRequestReason?.contains("invalidated") == true)
    #expect(loopback.server.requestCount == 1)
  }

  @Test("however its requests end, the transport's session delegate lets go of every task")
  func delegateDrains() async throws {
    let loopback = try Loopback { request, response in
      switch request.path {
      case "/ok": try await response.send(json: "{}")
      case "/missing": try await response.send(status: 404, text: "no")
      case "/large": try await response.send(body: Data(count: 4096))
      case "/close": response.closeConnection()
      default:  // hangs: cancelled or timed out by the client
        try await response.writeHead(status: 200, headers: [:], contentLength: nil)
        try await response.write(Data("a".utf8))
        await response.clientDisconnected()
      }
    }
    defer { loopback.stop() }
    let transport = URLSessionTransport()
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 1024
    let client = HTTPClient(
      baseURL: loopback.server.baseURL, configuration: configuration, transport: transport)
    _ = try await client.send(Request<Data>(path: "ok"))
    await #expect(throws: HTTPError.self) { try await client.send(Request<Data>(path: "missing")) }
    await #expect(throws: HTTPError.self) { try await client.send(Request<Data>(path: "large")) }
    await #expect(throws: HTTPError.self) { try await client.send(Request<Data>(path: "close")) }
    await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "slow", timeout: .milliseconds(100)))
    }
    let cancelled = Task { try await client.send(Request<Data>(path: "hang")) }
    while loopback.server.activeRequests == 0 { await Task.yield() }
    cancelled.cancel()
    await expectCancelled(cancelled)
    let stream = try await client.bytes(Request<Data>(path: "half"))
    for try await _ in stream { break }
    // Each task's completion reaches the delegate after its caller has had the answer.
    let drained = await watched {
      while transport.delegate.pendingEntries > 0 { await Task.yield() }
      return true
    }
    #expect(drained == true)
  }

  @Test("a default configuration sends; a background one is refused and nothing is sent")
  func backgroundRefused() async throws {
    let loopback = try Loopback { _, response in try await response.send(json: "{}") }
    defer { loopback.stop() }
    let working = HTTPClient(
      baseURL: loopback.server.baseURL, transport: URLSessionTransport(configuration: .default))
    _ = try await working.send(Request<Data>(path: "ok"))
    #expect(loopback.server.requestCount == 1)

    let background = URLSessionTransport(configuration: .backgroundForTesting())
    let borrowed = URLSession(configuration: .backgroundForTesting())
    defer { borrowed.invalidateAndCancel() }
    for transport in [background, URLSessionTransport(session: borrowed)] {
      let client = HTTPClient(baseURL: loopback.server.baseURL, transport: transport)
      let send = await #expect(throws: HTTPError.self) {
        try await client.send(Request<Data>(path: "refused"))
      }
      #expect(send?.invalidRequestReason?.contains("background session") == true)
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let download = await #expect(throws: HTTPError.self) {
        try await client.download(Request<Data>(path: "refused"), to: scratch.file("x")).finished()
      }
      #expect(download?.invalidRequestReason?.contains("background session") == true)
    }
    #expect(loopback.server.requestCount == 1)
  }

  @Test("a PEM client identity is refused on every platform before anything is sent")
  func pemIdentityRefused() async throws {
    let loopback = try Loopback { _, response in try await response.send(json: "{}") }
    defer { loopback.stop() }
    let working = HTTPClient(baseURL: loopback.server.baseURL, transport: URLSessionTransport())
    _ = try await working.send(Request<Data>(path: "ok"))
    let pem = ClientIdentity.pem(
      certificate: URL(fileURLWithPath: "/nonexistent/client.pem"),
      key: URL(fileURLWithPath: "/nonexistent/client.key"), passphrase: "s3cret")
    let client = HTTPClient(
      baseURL: loopback.server.baseURL, transport: URLSessionTransport(clientIdentity: pem))
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "refused"))
    }
    #expect(error?.invalidRequestReason?.contains("client identity") == true)
    #expect(error?.invalidRequestReason?.contains("s3cret") == false)
    #expect(loopback.server.requestCount == 1)
  }

  #if canImport(FoundationNetworking)
    @Test("Linux: an identity or a proxy refuses every request, naming CurlTransport; none is sent")
    func linuxRefusesIdentityAndProxy() async throws {
      let loopback = try Loopback { _, response in try await response.send(json: "{}") }
      defer { loopback.stop() }
      let working = HTTPClient(
        baseURL: loopback.server.baseURL, transport: URLSessionTransport(configuration: .default))
      _ = try await working.send(Request<Data>(path: "ok"))
      #expect(loopback.server.requestCount == 1)

      let identity = ClientIdentity.pkcs12(Data([0x30, 0x82]), passphrase: "s3cret")
      let proxy = ProxyConfiguration.http(
        host: "127.0.0.1", port: loopback.server.port, username: "u", password: "s3cret")
      for transport in [
        URLSessionTransport(clientIdentity: identity), URLSessionTransport(proxy: proxy),
        URLSessionTransport(clientIdentity: identity, proxy: proxy),
      ] {
        let client = HTTPClient(baseURL: loopback.server.baseURL, transport: transport)
        let send = await #expect(throws: HTTPError.self) {
          try await client.send(Request<Data>(path: "refused"))
        }
        #expect(send?.invalidRequestReason?.contains("use CurlTransport") == true)
        #expect(send?.invalidRequestReason?.contains("s3cret") == false)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let download = await #expect(throws: HTTPError.self) {
          try await client.download(Request<Data>(path: "refused"), to: scratch.file("x"))
            .finished()
        }
        #expect(download?.invalidRequestReason?.contains("use CurlTransport") == true)
      }
      #expect(loopback.server.requestCount == 1)
    }
  #endif

  #if canImport(FoundationNetworking)
    @Test(
      "Linux: a ServerTrust or a minimum TLS version refuses every request, naming CurlTransport")
    func linuxRefusesTrustAndTLSVersion() async throws {
      let loopback = try Loopback { _, response in try await response.send(json: "{}") }
      defer { loopback.stop() }
      let pin = Data(repeating: 1, count: 32).base64EncodedString()
      // A trust that asks for nothing beyond the system's default is no refusal.
      let plain = HTTPClient(
        baseURL: loopback.server.baseURL,
        transport: URLSessionTransport(trust: ServerTrust(trustsSystemRoots: true)))
      _ = try await plain.send(Request<Data>(path: "ok"))
      #expect(loopback.server.requestCount == 1)

      let refused: [(URLSessionTransport, String)] = [
        (URLSessionTransport(trust: ServerTrust(pinnedPublicKeys: [pin])), "ServerTrust"),
        (
          URLSessionTransport(
            trust: ServerTrust(
              certificateAuthorities: [.file(URL(fileURLWithPath: "/etc/ssl/certs/x.pem"))])),
          "ServerTrust"
        ),
        (URLSessionTransport(minimumTLSVersion: .tls12), "minimum TLS version"),
      ]
      for (transport, what) in refused {
        let client = HTTPClient(baseURL: loopback.server.baseURL, transport: transport)
        let error = await #expect(throws: HTTPError.self) {
          try await client.send(Request<Data>(path: "refused"))
        }
        #expect(error?.invalidRequestReason?.contains("use CurlTransport") == true)
        #expect(error?.invalidRequestReason?.contains(what) == true)
      }
      #expect(loopback.server.requestCount == 1)
    }
  #endif

  @Test("a refused background configuration makes no session with its identifier")
  func backgroundMakesNoSession() {
    let configuration = URLSessionConfiguration.backgroundForTesting()
    let transport = URLSessionTransport(configuration: configuration)
    #expect(transport.refusal != nil)
    #expect(transport.session.configuration.identifier == nil)
    #expect(configuration.identifier != nil)  // the caller's configuration is left alone
  }

  @Test("a URL cache stays where URLCache works (Apple platforms) and is dropped on Linux")
  func urlCache() {
    let cache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = cache
    let transport = URLSessionTransport(configuration: configuration)
    #expect((transport.session.configuration.urlCache != nil) == URLSessionTransport.urlCacheWorks)
    #expect(configuration.urlCache === cache)  // the caller's configuration is left alone

    let defaults = URLSessionTransport.defaultSessionConfiguration(urlCache: cache)
    #expect((defaults.urlCache != nil) == URLSessionTransport.urlCacheWorks)
    let policy: URLRequest.CachePolicy =
      URLSessionTransport.urlCacheWorks ? .useProtocolCachePolicy : .reloadIgnoringLocalCacheData
    #expect(defaults.requestCachePolicy == policy)
    let none = URLSessionTransport.defaultSessionConfiguration()
    #expect(none.urlCache == nil)
    #expect(none.requestCachePolicy == .reloadIgnoringLocalCacheData)
  }
}

@Suite("URLSession tasks take their Swift task's priority", .timeLimit(.minutes(1)))
struct TaskPriorityTests {
  @Test("a request sent from a high- or low-priority task runs at that URLSession priority")
  func priorities() async throws {
    for (priority, expected) in [
      (TaskPriority.high, URLSessionTask.highPriority), (.low, URLSessionTask.lowPriority),
    ] {
      let arrived = Signal()
      let release = Gate()
      let server = try LoopbackServer { _, response in
        arrived.fire()
        await release.wait()
        try await response.send(text: "ok")
      }
      defer { server.stop() }
      let own = OwnSession()
      defer { own.invalidate() }
      let client = HTTPClient(baseURL: server.baseURL, transport: own.transport)
      let sent = Task(priority: priority) { try await client.send(Request<String>(path: "p")) }
      await watched { await arrived.wait() }
      let running = await withCheckedContinuation { continuation in
        own.session.getAllTasks { tasks in continuation.resume(returning: tasks.map(\.priority)) }
      }
      #expect(running == [expected], "\(priority)")
      release.open()
      #expect(try await sent.value == "ok")
    }
  }
}
