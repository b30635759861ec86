import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How a head over libcurl's limits is told from a lost connection or an unknown failure
/// (MalformedResponseTests sends one for real).
@Suite("A response head over libcurl's limits is badServerResponse")
struct OversizedHeadTests {
  func code(_ error: HTTPError?) -> URLError.Code? {
    if case .transport(let urlError) = error { urlError.code } else { nil }
  }

  @Test("URLSession's unknown error in libcurl's words for it is badServerResponse")
  func urlSessionWords() {
    let error = HTTPError(
      transportFailure: NSError(
        domain: NSURLErrorDomain, code: -1,
        userInfo: [NSLocalizedDescriptionKey: "Too large response headers: 307361 > 307200"]))
    #expect(code(error) == .badServerResponse)
  }

  @Test("any other unknown error stays unknown (the good path beside it)")
  func otherUnknown() {
    let error = HTTPError(
      transportFailure: NSError(
        domain: NSURLErrorDomain, code: -1,
        userInfo: [NSLocalizedDescriptionKey: "Out of memory"]))
    #expect(code(error) == .unknown)
  }

  #if canImport(FoundationNetworking)
    @Test("CurlTransport: a receive error past the head's limit, or a field too long, is one")
    func curlOversized() {
      let url = URL(string: "http://127.0.0.1:1/x")
      let past = HTTPError.oversizedHead(curlCode: 56, bytes: 307_361, url: url)
      #expect(code(past) == .badServerResponse)
      #expect(HTTPError.oversizedHead(curlCode: 27, bytes: 17, url: url) != nil)
    }

    @Test("CurlTransport: an HTTP/2 frame libcurl refused (a header block too large) is one")
    func curlHTTP2Refused() {
      let detail =
        "h2_process_pending_input: nghttp2_session_mem_recv() returned -902:The user callback "
        + "function failed"
      #expect(code(HTTPError(curlCode: 56, detail: detail)) == .badServerResponse)
      // A stream the server broke or a connection that died is a lost connection still.
      let broken = "HTTP/2 stream 1 was not closed cleanly: PROTOCOL_ERROR (err 1)"
      #expect(code(HTTPError(curlCode: 92, detail: broken)) == .networkConnectionLost)
      #expect(
        code(HTTPError(curlCode: 56, detail: "Connection reset by peer")) == .networkConnectionLost)
    }

    @Test("CurlTransport: a receive error in a small head is a lost connection still")
    func curlSmallHead() {
      #expect(HTTPError.oversizedHead(curlCode: 56, bytes: 4_000, url: nil) == nil)
      #expect(HTTPError.oversizedHead(curlCode: 7, bytes: 400_000, url: nil) == nil)
      #expect(code(HTTPError(curlCode: 56)) == .networkConnectionLost)
    }
  #endif
}
