import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension TransportConformance {
  /// Statuses, headers and bodies of every kind, both ways.
  static var exchangeChecks: [Check] {
    [
      Check(name: "any status comes back with its headers and body, never as an error") { lab in
        let transport = lab.transport
        let server = try lab.server { request, response in
          let status = request.path == "/created" ? 201 : 404
          try await response.send(status: status, headers: ["X-Check": "yes"], text: "body")
        }
        defer { server.stop() }
        for (path, status) in [("created", 201), ("missing", 404)] {
          let response = try await transport.send(get(server, path), options: TransportOptions())
          try expect(response.head.status == status, "\(path): status \(response.head.status)")
          try expect(response.head.headers["x-check"] == "yes", "\(path): header missing")
          let body = try await response.body.collect()
          try expect(body == Data("body".utf8), "\(path): body \(body.count) bytes")
        }
      },
      Check(name: "request bodies from memory, a file and a stream arrive whole, with progress") {
        lab in
        let transport = lab.transport
        let server = try lab.server { request, response in
          try await response.send(body: request.body)
        }
        defer { server.stop() }
        let content = pattern(300_000)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
          "conformance-\(UUID().uuidString)")
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let sources: [(String, TransportRequestBody)] = [
          ("data", .data(content)), ("file", try TransportRequestBody.file(file)),
          (
            "stream",
            .stream(length: Int64(content.count)) {
              AsyncThrowingStream { continuation in
                continuation.yield(content.prefix(100_000))
                continuation.yield(content.dropFirst(100_000))
                continuation.finish()
              }
            }
          ),
        ]
        for (kind, source) in sources {
          var request = get(server, "echo")
          request.head.httpMethod = "POST"
          request.body = source
          let sent = Locked<Int64>(0)
          let options = TransportOptions(uploadProgress: { bytes, _ in
            sent.withLock { $0 = max($0, bytes) }
          })
          let response = try await transport.send(request, options: options)
          let echoed = try await response.body.collect()
          try expect(echoed == content, "\(kind): the server got \(echoed.count) bytes")
          try expect(
            sent.withLock { $0 } == Int64(content.count),
            "\(kind): upload progress reached \(sent.withLock { $0 }) bytes")
        }
      },
      Check(name: "chunked and close-delimited bodies arrive whole") { lab in
        let transport = lab.transport
        let server = try lab.server { request, response in
          if request.path == "/chunked" {
            try await response.writeHead()
            for part in ["one ", "two ", "three"] { try await response.write(Data(part.utf8)) }
            try await response.finish()
          } else {
            try await response.sendRaw(
              Data("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\none two three".utf8))
          }
        }
        defer { server.stop() }
        for path in ["chunked", "closed"] {
          let response = try await transport.send(get(server, path), options: TransportOptions())
          let body = try await response.body.collect()
          try expect(body == Data("one two three".utf8), "\(path): got \(body.count) bytes")
        }
      },
      // A transport may hold what the reader has not read yet (its buffer in memory, the
      // rest on disk: URLSessionTransport) or pause the transfer until the reader catches up
      // (CurlTransport); either way the server gets to send at least half the buffer before
      // a byte is read, and the reader gets every byte in order.
      Check(name: "a body read slowly arrives whole and in order") { lab in
        let transport = lab.transport
        let size = 4 << 20
        let bufferSize = 256 * 1024
        let content = pattern(size)
        let halfBufferSent = FirstOutcome<Void>()
        let server = try lab.server { _, response in
          try await response.writeHead(contentLength: size)
          var offset = 0
          while offset < size {
            let count = min(64 * 1024, size - offset)
            try await response.write(content.subdata(in: offset..<(offset + count)))
            offset += count
            if offset >= bufferSize / 2 { halfBufferSent.finish(()) }
          }
        }
        defer { server.stop() }
        let response = try await transport.send(
          get(server, "big"), options: TransportOptions(bufferSize: bufferSize))
        try await within("the server sending half the buffer before a byte is read") {
          await halfBufferSent.value()
        }
        let body = try await response.body.collect()
        try expect(body == content, "got \(body.count) bytes, or not in order")
      },
      Check(name: "a body cut off part-way hands over its bytes before the error") { lab in
        let transport = lab.transport
        let content = pattern(300_000)
        let server = try lab.server { _, response in
          try await response.writeHead(headers: ["ETag": "\"c1\""], contentLength: content.count)
          try await response.write(content.prefix(100_000))
          response.closeConnection()
        }
        defer { server.stop() }
        let streamed = Locked(Data())
        let error = await failure { () async throws(HTTPError) in
          let response = try await transport.send(get(server, "drop"), options: .init())
          for try await chunk in response.body { streamed.withLock { $0.append(chunk) } }
        }
        try expect(error != nil, "the cut body ended normally")
        let bytes = streamed.withLock { $0 }
        try expect(
          !bytes.isEmpty && bytes == content.prefix(bytes.count),
          "\(bytes.count) bytes, not a start of the body, came before the error")
      },
    ]
  }
}
