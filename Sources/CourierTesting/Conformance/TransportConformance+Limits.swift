import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension TransportConformance {
  /// Size limits as bytes arrive, deadlines and idle timeouts below one second.
  static var limitChecks: [Check] {
    [
      Check(name: "a Content-Length over the size limit fails before the body is read") {
        transport in
        let server = try LoopbackServer { _, response in
          try await response.writeHead(contentLength: 10_000)
          await response.clientDisconnected()
        }
        defer { server.stop() }
        let error = try await self.error("a response announcing 10000 bytes, limit 1000") {
          () async throws(HTTPError) in
          let response = try await transport.send(
            get(server, "big"), options: TransportOptions(maximumBytes: 1000))
          return try await response.body.collect()
        }
        guard case .responseTooLarge(1000) = error else {
          throw ConformanceFailure("expected responseTooLarge(1000), got \(error)")
        }
      },
      Check(name: "a body growing past the size limit fails and the connection is closed") {
        transport in
        let gone = FirstOutcome<Void>()
        let server = try LoopbackServer { _, response in
          try await response.writeHead()
          try await response.write(pattern(600))
          try await response.write(pattern(600))
          await response.clientDisconnected()
          gone.finish(())
        }
        defer { server.stop() }
        let error = try await self.error("a chunked body of 1200 bytes, limit 1000") {
          () async throws(HTTPError) in
          let response = try await transport.send(
            get(server, "big"), options: TransportOptions(maximumBytes: 1000))
          return try await response.body.collect()
        }
        guard case .responseTooLarge(1000) = error else {
          throw ConformanceFailure("expected responseTooLarge(1000), got \(error)")
        }
        try await within("the server seeing the connection closed") { await gone.value() }
      },
      Check(name: "a deadline below one second ends a silent server's request") { transport in
        let gone = FirstOutcome<Void>()
        let server = try LoopbackServer { _, response in
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
        guard case .timedOut? = error else {
          throw ConformanceFailure("expected timedOut, got \(String(describing: error))")
        }
        try await within("the server seeing the connection closed") { await gone.value() }
      },
      Check(name: "an idle timeout below one second ends a body that stops arriving") {
        transport in
        let server = try LoopbackServer { _, response in
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
        guard case .timedOut? = error else {
          throw ConformanceFailure("expected timedOut, got \(String(describing: error))")
        }
      },
    ]
  }

  /// The error `operation` ends with, or `nil` when it succeeds.
  static func failure<T>(_ operation: () async throws(HTTPError) -> T) async -> HTTPError? {
    do throws(HTTPError) {
      _ = try await operation()
      return nil
    } catch {
      return error
    }
  }
}
