#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Testing

  @testable import Courier

  /// CurlTransport's driver keeps its transfers' deadlines in its own loop: each goes in with
  /// its transfer and comes out with it, however the transfer ends, so that a finished
  /// request is not kept alive until its deadline, and a due one ends its exchange.
  @Suite("CurlTransport's driver keeps the deadlines", .timeLimit(.minutes(1)))
  struct CurlDeadlineTests {
    /// A server that sends nothing until its client leaves, and says when a request came.
    static func silent(arrived: Signal) throws -> LoopbackServer {
      try LoopbackServer { _, response in
        arrived.fire()
        await response.clientDisconnected()
      }
    }

    @Test("a deadline is kept while its transfer runs, and forgotten once it is answered")
    func forgottenWhenAnswered() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let transport = CurlTransport()
      let driver = try transport.driver.get()
      let options = TransportOptions(deadline: .now + .seconds(3600), idleTimeout: .seconds(3600))
      for _ in 0..<5 {
        let response = try await transport.send(
          TransportRequest.get(server.baseURL.appendingPathComponent("a")), options: options)
        #expect(String(decoding: try await response.body.collect(), as: UTF8.self) == "ok")
      }
      #expect(driver.deadlineCount == 0)
    }

    @Test("a caller that gives up mid-request leaves no deadline behind (a hurried user)")
    func forgottenWhenCancelled() async throws {
      let arrived = Signal()
      let server = try Self.silent(arrived: arrived)
      defer { server.stop() }
      let transport = CurlTransport()
      let driver = try transport.driver.get()
      let request = Task {
        try await transport.send(
          TransportRequest.get(server.baseURL.appendingPathComponent("slow")),
          options: TransportOptions(deadline: .now + .seconds(3600)))
      }
      await arrived.wait()
      #expect(driver.deadlineCount == 1)
      request.cancel()
      let outcome = await watched {
        do {
          _ = try await request.value
          return "answered"
        } catch {
          return "\(error)"
        }
      }
      #expect(outcome == "\(HTTPError.cancelled)")
      // The transfer's removal runs on the driver's thread, after the caller is answered.
      await watched { await transport.sleepsIdle() }
      #expect(driver.deadlineCount == 0)
    }

    @Test("a due deadline ends a transfer whose server never answers, and is forgotten")
    func dueEndsTransfer() async throws {
      let arrived = Signal()
      let server = try Self.silent(arrived: arrived)
      defer { server.stop() }
      let transport = CurlTransport()
      let driver = try transport.driver.get()
      let outcome = await watched {
        do {
          _ = try await transport.send(
            TransportRequest.get(server.baseURL.appendingPathComponent("never")),
            options: TransportOptions(deadline: .now + .milliseconds(200)))
          return "answered"
        } catch {
          return "\(error)"
        }
      }
      #expect(outcome == "\(HTTPError.timedOut)")
      await watched { await transport.sleepsIdle() }
      #expect(driver.deadlineCount == 0)
    }

    @Test(
      "a deadline already past when the transfer goes in ends it at once, with or without an idle timeout",
      arguments: [nil, Duration.seconds(60)] as [Duration?])
    func pastDeadline(idleTimeout: Duration?) async throws {
      let arrived = Signal()
      let server = try Self.silent(arrived: arrived)
      defer { server.stop() }
      let transport = CurlTransport()
      let outcome = await watched {
        do {
          _ = try await transport.send(
            TransportRequest.get(server.baseURL.appendingPathComponent("late")),
            options: TransportOptions(deadline: .now - .seconds(1), idleTimeout: idleTimeout))
          return "answered"
        } catch {
          return "\(error)"
        }
      }
      #expect(outcome == "\(HTTPError.timedOut)")
    }

    @Test("many transfers with deadlines in any order each end at their own")
    func deadlinesInAnyOrder() async throws {
      let server = try LoopbackServer { request, response in
        // "/fast" is answered, every other path never is.
        if request.path == "/fast" { return try await response.send(text: "ok") }
        await response.clientDisconnected()
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let driver = try transport.driver.get()
      // Long deadlines first, then short ones: each short one comes before the one the
      // sleeping driver waits for, and must wake it.
      let outcomes = await watched {
        await withTaskGroup(of: String.self) { group in
          for index in 0..<8 {
            let never = !index.isMultiple(of: 2)
            let path = never ? "never" : "fast"
            let deadline: ContinuousClock.Instant =
              never && index >= 4 ? .now + .milliseconds(100 * index) : .now + .seconds(3600)
            group.addTask {
              do {
                let response = try await transport.send(
                  TransportRequest.get(server.baseURL.appendingPathComponent(path)),
                  options: TransportOptions(deadline: deadline))
                return String(decoding: try await response.body.collect(), as: UTF8.self)
              } catch {
                return "\(error)"
              }
            }
          }
          // The two "never" requests with an hour to go are cancelled once the rest are in.
          var outcomes: [String] = []
          for await outcome in group {
            outcomes.append(outcome)
            if outcomes.count == 6 { group.cancelAll() }
          }
          return outcomes.sorted()
        }
      }
      let expected =
        ["\(HTTPError.cancelled)", "\(HTTPError.cancelled)"]
        + ["\(HTTPError.timedOut)", "\(HTTPError.timedOut)"] + Array(repeating: "ok", count: 4)
      #expect(outcomes == expected.sorted())
      await watched { await transport.sleepsIdle() }
      #expect(driver.deadlineCount == 0)
    }
  }
#endif
