import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("multipart/form-data bodies")
struct MultipartFormTests {
  func body(_ form: MultipartForm) throws -> (String, String?) {
    let request = try makeClient().urlRequest(
      for: Request<Data>(method: .post, path: "upload", body: .multipart(form)))
    return (
      String(decoding: request.httpBody ?? Data(), as: UTF8.self),
      request.value(forHTTPHeaderField: "Content-Type")
    )
  }

  @Test("fields and file parts framed with CRLF and the boundary, Content-Type carrying it")
  func framing() throws {
    var form = MultipartForm(boundary: "XyZ")
    form.add(name: "title", value: "Heat")
    form.add(
      name: "poster", filename: "heat.txt", contentType: "text/plain", data: Data("pixels".utf8))
    let (text, contentType) = try body(form)
    #expect(contentType == "multipart/form-data; boundary=XyZ")
    #expect(
      text == "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHeat\r\n"
        + "--XyZ\r\nContent-Disposition: form-data; name=\"poster\"; filename=\"heat.txt\"\r\n"
        + "Content-Type: text/plain\r\n\r\npixels\r\n--XyZ--\r\n")
  }

  @Test("quotes and line breaks in names are escaped; non-ASCII is kept as UTF-8")
  func escaping() throws {
    var form = MultipartForm(boundary: "b")
    form.add(name: "a\"b\r\nc", filename: "Amélie \"final\".txt", data: Data())
    let (text, _) = try body(form)
    #expect(text.contains(#"name="a%22b%0D%0Ac"; filename="Amélie %22final%22.txt""#))
  }

  @Test("a random boundary by default, different each time")
  func randomBoundary() {
    #expect(MultipartForm().boundary != MultipartForm().boundary)
    #expect(MultipartForm().boundary.hasPrefix("courier-"))
  }

  @Test("a file part is streamed from disk under its own name, with the whole length announced")
  func filePart() throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID()).bin")
    try Data([1, 2, 3]).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    var form = MultipartForm(boundary: "b")
    form.add(name: "file", fileURL: url)
    let request = try makeClient().urlRequest(
      for: Request<Data>(method: .post, path: "u", body: .multipart(form)))
    #expect(request.httpBody == nil)  // streamed from disk when sent, not read into the request
    let stream = try #require(request.httpBodyStream)
    let body = try readAll(stream)
    #expect(body.range(of: Data([1, 2, 3])) != nil)
    #expect(request.value(forHTTPHeaderField: "Content-Length") == String(body.count))
    #expect(String(decoding: body, as: UTF8.self).contains("filename=\"\(url.lastPathComponent)\""))
  }

  @Test("a missing file or a bad boundary is an invalid request, and nothing is sent")
  func badInput() async throws {
    var missing = MultipartForm()
    missing.add(name: "file", fileURL: URL(fileURLWithPath: "/nonexistent/courier.bin"))
    var badBoundary = MultipartForm(boundary: String(repeating: "x", count: 71))
    badBoundary.add(name: "a", value: "b")
    for (form, expected) in [(missing, "is not a readable file"), (badBoundary, "boundary")] {
      let transport = RefusingTransport()
      let error = await #expect(throws: HTTPError.self) {
        try await makeClient(transport: transport).send(
          Request<Data>(method: .post, path: "u", body: .multipart(form)))
      }
      #expect(error?.invalidRequestReason?.contains(expected) == true)
      #expect(transport.sentCount == 0)
    }
  }

  /// RFC 2046 §5.1.1 allows `'()+,-./:=?` and space in a boundary, and RFC 2045 §5.1 says a
  /// parameter value with any of `()<>@,;:\"/[]?=` or space is quoted: `boundary=a b=c`
  /// was sent bare, which a server reads as the boundary `a`.
  @Test(
    "a boundary a token cannot hold is quoted in the Content-Type; a token boundary is not",
    arguments: [
      ("a b=c", #"multipart/form-data; boundary="a b=c""#),
      ("(x)/y:z?,", #"multipart/form-data; boundary="(x)/y:z?,""#),
      ("x'y+z-_.", "multipart/form-data; boundary=x'y+z-_."),
    ])
  func boundaryQuoted(boundary: String, expected: String) throws {
    var form = MultipartForm(boundary: boundary)
    form.add(name: "a", value: "1")
    #expect(form.contentType == expected)
    let (text, contentType) = try body(form)
    #expect(contentType == expected)
    #expect(text.hasPrefix("--\(boundary)\r\n"))
  }

  /// A caller's fixed boundary (for reproducible bodies) inside a part's content ended the
  /// part early there and let the content's own lines become parts: a field named `evil`.
  @Test(
    "a part in memory holding the boundary delimiter is an invalid request; nothing is sent",
    arguments: [
      "a\r\n--b\r\nContent-Disposition: form-data; name=\"evil\"\r\n\r\n1", "--b--",
      "x\r\n--bz",
    ])
  func boundaryInContent(content: String) async throws {
    var form = MultipartForm(boundary: "b")
    form.add(name: "first", value: "ok")
    form.add(name: "field", value: content)
    let transport = RefusingTransport()
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: transport).send(
        Request<Data>(method: .post, path: "u", body: .multipart(form)))
    }
    let reason = try #require(error?.invalidRequestReason)
    #expect(reason.contains("part 'field'") && reason.contains("boundary"), "\(reason)")
    #expect(transport.sentCount == 0)
  }

  @Test("the boundary's text elsewhere in a part, not after a line break, is sent (the good path)")
  func boundaryTextInContent() throws {
    var form = MultipartForm(boundary: "b")
    form.add(name: "field", filename: "f.bin", data: Data("x--b\r\n-b--b".utf8))
    let (text, _) = try body(form)
    #expect(text.contains("\r\n\r\nx--b\r\n-b--b\r\n--b--\r\n"))
  }

  @Test(
    "a part's content type with CR, LF or another control character is an invalid request",
    arguments: ["text/plain\r\nX-Injected: yes", "text/plain\nX-Injected: yes", "text/\u{7F}plain"])
  func partContentTypeRefused(contentType: String) async throws {
    var form = MultipartForm(boundary: "b")
    form.add(name: "file", filename: "a.txt", contentType: contentType, data: Data("x".utf8))
    let transport = RefusingTransport()
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: transport).send(
        Request<Data>(method: .post, path: "u", body: .multipart(form)))
    }
    #expect(error?.invalidRequestReason?.contains("'file'") == true, "\(String(describing: error))")
    #expect(transport.sentCount == 0)
  }
}

/// Everything `stream` holds.
func readAll(_ stream: InputStream) throws -> Data {
  stream.open()
  defer { stream.close() }
  var data = Data()
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = stream.read(&buffer, maxLength: buffer.count)
    if count < 0 { throw stream.streamError ?? CocoaError(.fileReadUnknown) }
    if count == 0 { return data }
    data.append(contentsOf: buffer[0..<count])
  }
}
