import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension TransportConformance {
  /// One-time streams: sent whole without a length.
  static var oneTimeBodyChecks: [Check] {
    [
      Check(name: "a one-time stream of unknown length arrives whole") { lab in
        let transport = lab.transport
        let server = try lab.server { request, response in
          try await response.send(body: request.body)
        }
        defer { server.stop() }
        let content = pattern(200_000)
        var request = get(server, "echo")
        request.head.httpMethod = "POST"
        request.body = .stream(Chunks(content, size: 30_000))
        let echoed = try await transport.send(request, options: .init()).body.collect()
        try expect(echoed == content, "the server got \(echoed.count) of 200000 bytes")
      }
    ]
  }

  /// A streamed body leaves as it is produced.
  static var liveBodyChecks: [Check] {
    [
      Check(name: "a streamed body leaves before it ends, and the answer is read meanwhile") {
        lab in
        let transport = lab.transport
        // Echoes each chunk of the body as it arrives.
        let server = try lab.server(streamsRequestBodies: true) { request, response in
          try await response.writeHead()
          for try await chunk in request.bodyChunks { try await response.write(chunk) }
          try await response.finish()
        }
        defer { server.stop() }
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        var request = get(server, "echo")
        request.head.httpMethod = "POST"
        request.body = .stream(chunks)
        let live = request
        producer.yield(Data("ping 1;".utf8))
        let outcome = try await within("the echo of a body's first chunk before its end") {
          () async -> Result<[String], HTTPError> in
          do throws(HTTPError) {
            let response = try await transport.send(live, options: .init())
            var heard: [String] = []
            var pending = ""
            var iterator = response.body.makeAsyncIterator()
            for round in 1...3 {
              // Each chunk is produced only once the one before has come back.
              while !pending.contains("ping \(round);") {
                guard let chunk = try await iterator.next() else { return .success(heard) }
                pending += String(decoding: chunk, as: UTF8.self)
              }
              heard.append("ping \(round)")
              pending = ""
              if round < 3 { producer.yield(Data("ping \(round + 1);".utf8)) }
            }
            producer.finish()
            while try await iterator.next() != nil {}
            return .success(heard)
          } catch {
            return .failure(error)
          }
        }
        let heard = try outcome.get()
        try expect(heard.count == 3, "heard back only \(heard)")
      },
      Check(name: "a producer is held back while the server does not read") { lab in
        let transport = lab.transport
        // Reads 1 MB, then stops reading and answers 413 at once, as a server does for a
        // body too large for it (HTTP clients stop sending on an early error answer).
        let server = try lab.server(streamsRequestBodies: true) { request, response in
          var read = 0
          for try await chunk in request.bodyChunks {
            read += chunk.count
            if read >= 1_000_000 { break }
          }
          try await response.send(status: 413, headers: ["Connection": "close"], text: "enough")
        }
        defer { server.stop() }
        let pulled = Locked(0)
        let chunk = pattern(64 * 1024)
        let body = Chunks(count: 2048, of: chunk) { pulled.withLock { $0 += chunk.count } }
        var request = get(server, "sink")
        request.head.httpMethod = "POST"
        request.body = .stream(body)
        let sink = request
        let answer = try await within("the end of an upload the server stopped reading") {
          () async -> Result<Int, HTTPError> in
          do throws(HTTPError) {
            return .success(try await transport.send(sink, options: .init()).head.status)
          } catch {
            return .failure(error)
          }
        }
        // The 413, or a connection the server closed under a request still sending.
        if case .success(let status) = answer {
          try expect(status == 413, "the server's early answer came back as \(status)")
        }
        // 128 MiB were on offer; what was read of it is at most 1 MB plus what the sockets'
        // buffers, libcurl's and the transport's hold.
        let total = pulled.withLock { $0 }
        try expect(total < 48_000_000, "the producer was read \(total) bytes ahead")
      },
    ]
  }
}

/// A one-time sequence of chunks: `data` cut into pieces of `size` bytes, or `count` times
/// the same chunk, calling `pulled` for each.
private struct Chunks: AsyncSequence, Sendable {
  typealias Element = Data
  let pieces: @Sendable (Int) -> Data?
  let pulled: @Sendable () -> Void

  init(_ data: Data, size: Int) {
    pieces = { index in
      let start = index * size
      guard start < data.count else { return nil }
      return data.subdata(in: start..<Swift.min(data.count, start + size))
    }
    pulled = {}
  }

  init(count: Int, of chunk: Data, pulled: @escaping @Sendable () -> Void) {
    pieces = { index in index < count ? chunk : nil }
    self.pulled = pulled
  }

  func makeAsyncIterator() -> Iterator { Iterator(chunks: self) }

  struct Iterator: AsyncIteratorProtocol {
    let chunks: Chunks
    var index = 0

    mutating func next() async throws -> Data? {
      guard let piece = chunks.pieces(index) else { return nil }
      index += 1
      chunks.pulled()
      return piece
    }
  }
}
