import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// Splits a multipart/form-data body into (headers, bytes) per part: the test's own
/// reading of RFC 7578, independent of the encoder.
func multipartParts(_ body: Data, boundary: String) -> [(headers: String, bytes: Data)] {
  let delimiter = Data("--\(boundary)".utf8)
  var parts: [(String, Data)] = []
  var cursor = body.startIndex
  guard let first = body.range(of: delimiter, in: cursor..<body.endIndex) else { return [] }
  cursor = first.upperBound
  while body[cursor...].starts(with: Data("\r\n".utf8)) {
    let start = cursor + 2
    guard let end = body.range(of: Data("\r\n".utf8) + delimiter, in: start..<body.endIndex),
      let split = body.range(of: Data("\r\n\r\n".utf8), in: start..<end.lowerBound)
    else { break }
    parts.append(
      (
        String(decoding: body[start..<split.lowerBound], as: UTF8.self),
        Data(body[split.upperBound..<end.lowerBound])
      ))
    cursor = end.upperBound
  }
  return parts
}

/// The bodies Courier wrote to the temporary directory for sending `form` and has not
/// deleted: those that start with its boundary. (Other tests' uploads, in flight at the same
/// time, have bodies of their own there.)
func temporaryBodyFiles(of form: MultipartForm) -> [String] {
  temporaryBodyFiles(startingWith: Data("--\(form.boundary)".utf8))
}

/// The bodies Courier wrote to the temporary directory and has not deleted that start with
/// `start`.
func temporaryBodyFiles(startingWith start: Data) -> [String] {
  let directory = FileManager.default.temporaryDirectory
  let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
  return (names ?? []).filter { name in
    guard name.hasPrefix("courier-body-"),
      let handle = try? FileHandle(forReadingFrom: directory.appendingPathComponent(name))
    else { return false }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: start.count)) == start
  }
}

@Suite("Multipart bodies read back by a real server", .timeLimit(.minutes(1)))
struct MultipartTests {
  @Test("fields and a 1 MB file part arrive exactly as sent")
  func roundTrip() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-\(UUID()).bin")
    let bytes = Data((0..<(1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    try await bytes.write(offPoolTo: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let seen = Locked<(String, Data)>(("", Data()))
    let loopback = try Loopback { request, response in
      seen.withLock { $0 = (request.headers["Content-Type"] ?? "", request.body) }
      try await response.send(status: 204)
    }
    defer { loopback.stop() }
    var form = MultipartForm()
    form.add(name: "title", value: "Heat — 1995")
    form.add(name: "note \"quoted\"", value: "line 1\r\nline 2")
    form.add(name: "poster", fileURL: file, filename: "heat.bin")
    try await loopback.client.send(
      Request<EmptyResponse>(method: .post, path: "upload", body: .multipart(form)))
    #expect(temporaryBodyFiles(of: form).isEmpty)
    let (contentType, body) = seen.withLock { $0 }
    #expect(contentType == form.contentType)
    let parts = multipartParts(body, boundary: form.boundary)
    #expect(parts.count == 3)
    guard parts.count == 3 else { return }
    #expect(parts[0].headers == #"Content-Disposition: form-data; name="title""#)
    #expect(String(decoding: parts[0].bytes, as: UTF8.self) == "Heat — 1995")
    #expect(parts[1].headers.contains(#"name="note %22quoted%22""#))
    #expect(String(decoding: parts[1].bytes, as: UTF8.self) == "line 1\r\nline 2")
    #expect(parts[2].headers.contains(#"filename="heat.bin""#))
    #expect(parts[2].bytes == bytes)
  }

  @Test("a 50 MB file part is streamed from disk and parsed back byte for byte")
  func fiftyMegabytes() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let bytes = patternBytes(50 * 1024 * 1024, from: 3)
    try await bytes.write(offPoolTo: scratch.file("film.bin"))
    let seen = Locked<(String, Data, String)>(("", Data(), ""))
    let loopback = try Loopback { request, response in
      seen.withLock {
        $0 = (
          request.headers["Content-Type"] ?? "", request.body,
          request.headers["Content-Length"] ?? ""
        )
      }
      try await response.send(status: 204)
    }
    defer { loopback.stop() }
    var form = MultipartForm()
    form.add(name: "title", value: "Heat")
    form.add(name: "film", fileURL: scratch.file("film.bin"), contentType: "video/mp4")
    try await loopback.client.send(
      Request<EmptyResponse>(method: .post, path: "upload", body: .multipart(form)))
    let (contentType, body, contentLength) = seen.withLock { $0 }
    #expect(contentType == form.contentType)
    #expect(contentLength == String(body.count))
    let parts = multipartParts(body, boundary: form.boundary)
    #expect(parts.count == 2)
    #expect(parts.first?.bytes == Data("Heat".utf8))
    #expect(parts.last?.headers.contains(#"filename="film.bin""#) == true)
    #expect(parts.last?.bytes == bytes)
    #expect(scratch.contents == ["film.bin"])
    #expect(temporaryBodyFiles(of: form).isEmpty)  // the body written to send it is gone
  }
}
