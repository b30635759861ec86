import Foundation
import Testing

@testable import Courier

/// The error a ServerTrust refuses a server with on Apple platforms: built here, since its
/// text and contents are pure (the evaluation that picks the check is Apple's).
@Suite("ServerTrust refusals say which check failed and carry the system's reason")
struct ServerTrustRefusalTests {
  /// The `URLError` inside `error`, or a recorded issue.
  private func urlError(_ error: HTTPError) -> URLError? {
    guard case .transport(let urlError) = error else {
      Issue.record("expected a transport failure, got \(error)")
      return nil
    }
    return urlError
  }

  @Test(
    "each check names itself and the host, as serverCertificateUntrusted",
    arguments: [
      (ResolvedTrust.Check.chain, "not valid for the host or does not end at a trusted authority"),
      (.pinnedKey, "none of the pinned keys"),
      (.unsupportedKey, "of a kind no pin can match"),
      (.anchors(status: -50), "could not be set on the server's trust (OSStatus -50)"),
    ])
  func names(check: ResolvedTrust.Check, words: String) throws {
    let error = try #require(
      urlError(ResolvedTrust.refusal(host: "api.example.com", check: check)))
    #expect(error.code == .serverCertificateUntrusted)
    #expect(
      error.localizedDescription.hasPrefix("the ServerTrust refused the server api.example.com: "))
    #expect(error.localizedDescription.contains(words))
    #expect(error.userInfo[NSUnderlyingErrorKey] == nil)
  }

  @Test("the Security framework's error is the underlying one, its reason in the description")
  func underlying() throws {
    // What SecTrustEvaluateWithError reports for a chain to an unknown root (errSecNotTrusted).
    let evaluation = NSError(
      domain: "NSOSStatusErrorDomain", code: -67843,
      userInfo: [NSLocalizedDescriptionKey: "“api.example.com” certificate is not trusted"])
    let error = try #require(
      urlError(
        ResolvedTrust.refusal(host: "api.example.com", check: .chain, underlying: evaluation)))
    #expect(error.code == .serverCertificateUntrusted)
    let carried = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
    #expect(carried.domain == "NSOSStatusErrorDomain" && carried.code == -67843)
    #expect(
      error.localizedDescription.hasSuffix(
        "does not end at a trusted authority (“api.example.com” certificate is not trusted)"))
    // Nothing else goes in: no request, no header, no credential.
    #expect(
      Set(error.userInfo.keys) == [
        NSLocalizedDescriptionKey, NSUnderlyingErrorKey, HTTPError.reasonKey,
      ])
  }

  @Test("the description reaches HTTPError's own, for logs")
  func description() {
    let error = ResolvedTrust.refusal(host: "pinned.example.com", check: .pinnedKey)
    #expect(
      "\(error)"
        == "Transport error: TLS handshake failed (URLError -1202): the ServerTrust refused the "
        + "server pinned.example.com: its certificate chain is trusted, but its public key is "
        + "none of the pinned keys.")
  }
}
