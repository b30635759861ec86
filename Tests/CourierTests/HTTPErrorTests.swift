import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("HTTPError descriptions")
struct HTTPErrorTests {
  let secretURL = URL(
    string: "https://user:hunter2@api.example.com/3/movie/1?api_key=s3cret&page=2")!

  @Test("an unacceptable status names the status and URL, with credentials redacted")
  func unacceptableStatus() {
    let response = HTTPResponse(
      status: 404, headers: ["Set-Cookie": "session=s3cret"],
      body: Data(#"{"status_message":"gone"}"#.utf8),
      url: secretURL)
    let text = HTTPError.unacceptableStatus(response).description
    #expect(text.contains("404 Not Found"), "\(text)")
    #expect(text.contains("/3/movie/1"))
    #expect(text.contains("api_key=<redacted>&page=2"), "\(text)")
    #expect(text.contains("status_message"))
    #expect(!text.contains("s3cret"))
    #expect(!text.contains("hunter2"))
  }

  @Test("a transport error names the URLError and the redacted URL")
  func transport() {
    let error = URLError(.cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: secretURL])
    let text = HTTPError.transport(error).description
    #expect(text.contains("cannot connect to host"), "\(text)")
    #expect(text.contains("-1004"))
    #expect(!text.contains("s3cret"))
  }

  @Test("every case describes itself in words")
  func everyCase() {
    let response = HTTPResponse(status: 200, url: URL(string: "https://h.example/x"))
    let cases: [HTTPError] = [
      .invalidRequest(reason: "the path contains CR or LF"), .timedOut, .cancelled,
      .decodingFailed(reason: "missing key 'id'", response: response), .responseTooLarge(limit: 10),
    ]
    let texts = cases.map(\.description)
    #expect(texts[0] == "Invalid request: the path contains CR or LF. Nothing was sent.")
    #expect(texts[1].contains("timed out"))
    #expect(texts[2].contains("cancelled"))
    #expect(texts[3].contains("missing key 'id'") && texts[3].contains("https://h.example/x"))
    #expect(texts[4].contains("10 bytes") && texts[4].contains("maximumResponseBytes"))
  }
}
