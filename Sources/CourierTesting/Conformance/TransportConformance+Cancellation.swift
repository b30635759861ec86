import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension TransportConformance {
  /// Cancellation before the request starts, while the head is awaited, and mid-body.
  static var cancellationChecks: [Check] {
    [
      Check(name: "cancelled before it starts: cancelled, and no connection is opened") { lab in
        let transport = lab.transport
        let server = try lab.server { _, response in try await response.send(text: "ok") }
        defer { server.stop() }
        let task = Task { () async -> HTTPError? in
          withUnsafeCurrentTask { $0?.cancel() }
          return await failure { () async throws(HTTPError) in
            try await transport.send(get(server, "x"), options: .init())
          }
        }
        let error = try await within("the cancelled request's answer") { await task.value }
        try expect(error, is: .cancelled)
        try expect(server.connectionCount == 0, "a connection was opened")
      },
      Check(name: "cancelled while waiting for the head: cancelled, and the connection closed") {
        lab in
        let transport = lab.transport
        let started = FirstOutcome<Void>()
        let gone = FirstOutcome<Void>()
        let server = try lab.server { _, response in
          started.finish(())
          await response.clientDisconnected()
          gone.finish(())
        }
        defer { server.stop() }
        let task = Task { () async -> HTTPError? in
          await failure { () async throws(HTTPError) in
            try await transport.send(get(server, "wait"), options: .init())
          }
        }
        try await within("the request reaching the server") { await started.value() }
        task.cancel()
        let error = try await within("the cancelled request's answer") { await task.value }
        try expect(error, is: .cancelled)
        try await within("the server seeing the connection closed") { await gone.value() }
      },
      Check(name: "cancelled mid-body: reading ends with cancelled, and the connection closed") {
        lab in
        let transport = lab.transport
        let gone = FirstOutcome<Void>()
        let server = try lab.server { _, response in
          try await response.writeHead()
          try await response.write(Data("first".utf8))
          await response.clientDisconnected()
          gone.finish(())
        }
        defer { server.stop() }
        let response = try await transport.send(get(server, "body"), options: .init())
        let firstChunk = FirstOutcome<Void>()
        let reader = Task { () async -> HTTPError? in
          await failure { () async throws(HTTPError) in
            for try await _ in response.body { firstChunk.finish(()) }
          }
        }
        try await within("the first chunk") { await firstChunk.value() }
        reader.cancel()
        let error = try await within("the cancelled reader's answer") { await reader.value }
        try expect(error, is: .cancelled)
        try await within("the server seeing the connection closed") { await gone.value() }
      },
    ]
  }
}
