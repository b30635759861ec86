import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension TransportConformance {
  /// A collected body's buffer as bytes arrive, deadlines and idle timeouts below one
  /// second.
  static var limitChecks: [Check] {
    [
      Check(name: "a Content-Length over a collected body's buffer fails before the body is read") {
        lab in
        let transport = lab.transport
        let server = try lab.server { _, response in
          try await response.writeHead(contentLength: 10_000)
          await response.clientDisconnected()
        }
        defer { server.stop() }
        try await expectTooLarge(transport, server, "a response announcing 10000 bytes")
      },
      Check(name: "a collected body growing past its buffer fails and the connection is closed") {
        lab in
        let transport = lab.transport
        let gone = FirstOutcome<Void>()
        let server = try lab.server { _, response in
          try await response.writeHead()
          try await response.write(pattern(600))
          try await response.write(pattern(600))
          await response.clientDisconnected()
          gone.finish(())
        }
        defer { server.stop() }
        try await expectTooLarge(transport, server, "a chunked body of 1200 bytes")
        try await within("the server seeing the connection closed") { await gone.value() }
      },
      Check(name: "a deadline below one second ends a silent server's request") { lab in
        let transport = lab.transport
        let gone = FirstOutcome<Void>()
        let server = try lab.server { _, response in
          await response.clientDisconnected()
          gone.finish(())
        }
        defer { server.stop() }
        let error = try await within("the deadline") {
          await Self.failure { () async throws(HTTPError) in
            try await transport.send(
              get(server, "silent"), options: TransportOptions(deadline: .now + .milliseconds(300))
            )
          }
        }
        try expect(error, is: .timedOut)
        try await within("the server seeing the connection closed") { await gone.value() }
      },
      Check(name: "a deadline below one second ends a streamed body that stops arriving") {
        lab in
        let transport = lab.transport
        let server = try lab.server { _, response in
          try await response.writeHead(contentLength: 100)
          try await response.write(Data("partial".utf8))
          await response.clientDisconnected()
        }
        defer { server.stop() }
        let error = try await within("the deadline") {
          await Self.failure { () async throws(HTTPError) in
            let response = try await transport.send(
              get(server, "stalls"),
              options: TransportOptions(deadline: .now + .milliseconds(300)))
            return try await response.body.collect()
          }
        }
        try expect(error, is: .timedOut)
      },
      Check(name: "an idle timeout below one second ends a body that stops arriving") { lab in
        let transport = lab.transport
        let server = try lab.server { _, response in
          try await response.writeHead()
          try await response.write(Data("x".utf8))
          await response.clientDisconnected()
        }
        defer { server.stop() }
        let error = try await within("the idle timeout") {
          await Self.failure { () async throws(HTTPError) in
            let response = try await transport.send(
              get(server, "stalls"), options: TransportOptions(idleTimeout: .milliseconds(300)))
            return try await response.body.collect()
          }
        }
        try expect(error, is: .timedOut)
      },
    ]
  }

  /// Fails unless a GET of `server` collected in a buffer of 1000 bytes ends with
  /// `HTTPError.responseTooLarge(limit:)`.
  static func expectTooLarge(
    _ transport: any HTTPTransport, _ server: LoopbackServer, _ what: String
  ) async throws {
    let error = try await self.error("\(what), limit 1000") { () async throws(HTTPError) in
      let response = try await transport.send(
        get(server, "big"), options: TransportOptions(collectsBody: true, bufferSize: 1000))
      return try await response.body.collect()
    }
    guard case .responseTooLarge(1000) = error else {
      throw ConformanceFailure("expected responseTooLarge(1000), got \(error)")
    }
  }

}
