import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The wait for a token refresh counts against the request's timeout, on the client's clock.
@Suite("Authentication middleware and the request's timeout", .timeLimit(.minutes(1)))
struct AuthenticationTimeoutTests {
  let clock = ManualClock()

  /// A client with `timeout`, bearer authentication from `provider`, and the manual clock,
  /// over a stub that accepts only `Bearer t1`.
  func client(_ provider: CountingProvider, timeout: Duration?) -> (HTTPClient, StubTransport) {
    let transport = AuthenticationTests().stub(valid: "t1")
    var configuration = HTTPClient.Configuration(timeout: timeout)
    configuration.middleware = [BearerAuthentication(provider: provider)]
    configuration.clock = clock
    return (makeClient(transport: transport, configuration: configuration), transport)
  }

  @Test("a refresh that hangs ends the request at its timeout with timedOut; the refresh goes on")
  func hangingRefresh() async throws {
    let gate = Gate()
    let provider = CountingProvider(gate: gate)
    let (client, transport) = client(provider, timeout: .seconds(5))
    let call = Task { try await client.send(Request<String>(path: "me")) }
    await clock.sleepers(atLeast: 1)  // the request waits for the refresh
    clock.advance(by: .seconds(5))
    await #expect(throws: HTTPError.timedOut) { try await call.value }
    #expect(transport.requests.count == 1)
    gate.open()
    #expect(try await client.send(Request<String>(path: "me")) == "Bearer t1")
    #expect(await provider.refreshCount == 1)
  }

  @Test("a refresh that ends within the timeout replays the request")
  func refreshWithinTimeout() async throws {
    let gate = Gate()
    let provider = CountingProvider(gate: gate)
    let (client, transport) = client(provider, timeout: .seconds(5))
    let call = Task { try await client.send(Request<String>(path: "me")) }
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(4))
    gate.open()
    #expect(try await call.value == "Bearer t1")
    #expect(transport.requests.count == 2)
  }
}
