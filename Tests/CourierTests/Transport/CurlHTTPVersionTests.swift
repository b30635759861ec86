#if canImport(FoundationNetworking)
  import CourierTestSupport
  import Foundation
  import Testing

  @testable import Courier

  /// What CurlTransport asks libcurl for: HTTP/2 over TLS, or HTTP/1.1 from a libcurl built
  /// without HTTP/2, which refuses the former (`CURLE_UNSUPPORTED_PROTOCOL`) when it is set.
  @Suite("CurlTransport: the HTTP version asked for")
  struct CurlHTTPVersionTests {
    @Test("a libcurl with HTTP/2 takes HTTP/2 over TLS")
    func withHTTP2() throws {
      var asked: [Int] = []
      try CurlTransfer.setHTTPVersion(Curl.http2OverTLS) { version in
        asked.append(version)
        return 0
      }
      #expect(asked == [Curl.http2OverTLS])
    }

    @Test("a libcurl without HTTP/2 (no nghttp2) is asked for HTTP/1.1 instead of failing")
    func withoutHTTP2() throws {
      var asked: [Int] = []
      try CurlTransfer.setHTTPVersion(Curl.http2OverTLS) { version in
        asked.append(version)
        return version >= 3 ? Curl.unsupportedProtocol : 0
      }
      #expect(asked == [Curl.http2OverTLS, Curl.http11])
    }

    @Test(
      "a prior-knowledge connection is reused from libcurl 8.0 on only",
      arguments: [
        ("libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 nghttp2/1.52.0", false),
        ("libcurl/7.99.9", false), ("libcurl/8.0.0 nghttp2/1.52.0", true),
        ("libcurl/8.11.1-DEV OpenSSL/3.4.0", true), ("libcurl/10.1 zlib", true),
        ("curl/8.0.0", false), ("libcurl/", false), ("", false),
      ])
    func priorKnowledgeReuse(version: String, reuses: Bool) {
      #expect(Curl.reusesPriorKnowledge(version: version) == reuses)
    }

    @Test("any other refusal is the request's failure")
    func otherRefusal() {
      #expect(throws: HTTPError.self) {
        try CurlTransfer.setHTTPVersion(Curl.http2OverTLS) { _ in 43 }  // bad argument
      }
    }
  }
#endif
