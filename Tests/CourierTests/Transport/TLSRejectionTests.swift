import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a refused TLS challenge leaves for a task without a call (a WebSocket task, whose
/// delegate reads it when the task ends as cancelled), and what a ServerTrust's answers become.
/// URLSession sends TLS challenges on Apple platforms only, so the session delegate is handed
/// challenges made by the test, as URLSession would hand them.
@Suite("Refused TLS challenges: kept for WebSocket tasks, the ServerTrust's answers applied")
struct TLSRejectionTests {
  /// A delegate with `handler`, `trust` and `identity`, a task of a session to challenge, and
  /// the session (invalidated by the caller).
  private func delegate(
    handler: TLSChallengeHandler? = nil,
    trust: (@Sendable (URLAuthenticationChallenge) -> ResolvedTrust.Decision)? = nil,
    identity: ClientCredential? = nil
  ) -> (SessionDelegate, URLSessionTask, URLSession) {
    let delegate = SessionDelegate(
      tlsChallenges: handler, clientCredential: identity, serverTrust: trust)
    let session = URLSession(configuration: URLSessionTransport.defaultSessionConfiguration())
    let task = session.dataTask(with: URL(string: "https://api.example.com/")!)
    return (delegate, task, session)
  }

  /// `delegate`'s answer to a challenge of `method` for `task`.
  private func disposition(
    _ method: String, of task: URLSessionTask, on session: URLSession,
    by delegate: SessionDelegate
  ) -> URLSession.AuthChallengeDisposition? {
    let answer = Locked<URLSession.AuthChallengeDisposition?>(nil)
    delegate.urlSession(session, task: task, didReceive: TLSChallengeTests.challenge(method)) {
      disposition, _ in answer.withLock { $0 = disposition }
    }
    return answer.withLock { $0 }
  }

  private static let refusal = ResolvedTrust.refusal(host: "api.example.com", check: .chain)

  @Test(
    "a task without a call keeps the error of its refused challenge, read once",
    arguments: ["trust refuses", "handler rejects", "identity fails"])
  func keptForTaskWithoutCall(_ refusal: String) {
    let broken = ClientCredential { .failure(ClientIdentity.rejection("no bundle")) }
    let (delegate, task, session) =
      switch refusal {
      case "trust refuses": delegate(trust: { _ in .refuse(Self.refusal) })
      case "handler rejects":
        delegate(handler: { _ in .reject }, trust: { _ in .refuse(Self.refusal) })
      default: delegate(identity: broken)
      }
    defer { session.invalidateAndCancel() }
    let method =
      refusal == "identity fails"
      ? TLSChallenge.clientCertificateMethod : TLSChallenge.serverTrustMethod
    #expect(
      disposition(method, of: task, on: session, by: delegate) == .cancelAuthenticationChallenge)
    let expected: HTTPError =
      switch refusal {
      case "trust refuses": Self.refusal
      case "handler rejects": .transport(URLError(.serverCertificateUntrusted))
      default: ClientIdentity.rejection("no bundle")
      }
    #expect(delegate.takeRejection(for: task) == expected)
    #expect(delegate.takeRejection(for: task) == nil)
  }

  @Test("a kept rejection goes when the task completes on the session's delegate")
  func droppedOnCompletion() {
    let (delegate, task, session) = delegate(handler: { _ in .reject })
    defer { session.invalidateAndCancel() }
    _ = disposition(TLSChallenge.serverTrustMethod, of: task, on: session, by: delegate)
    delegate.urlSession(session, task: task, didCompleteWithError: URLError(.cancelled))
    #expect(delegate.takeRejection(for: task) == nil)
  }

  @Test("a server trusted without anchors of its own is left to the default handling")
  func defaultHandlingAfterPins() {
    let (delegate, task, session) = delegate(trust: { _ in .performDefaultHandling })
    defer { session.invalidateAndCancel() }
    #expect(
      disposition(TLSChallenge.serverTrustMethod, of: task, on: session, by: delegate)
        == .performDefaultHandling)
    #expect(delegate.takeRejection(for: task) == nil)

    // The rule: pins alone leave the server to URLSession (and ATS); anchors need the credential.
    let credential = URLCredential(user: "evaluated", password: "", persistence: .none)
    let pin = Data(repeating: 7, count: 32)
    let pinsOnly = ResolvedTrust(anchors: [], trustsSystemRoots: true, pins: [pin])
    guard case .performDefaultHandling = pinsOnly.passed(credential) else {
      Issue.record("pins alone should leave the server to the default handling")
      return
    }
    for trustsSystemRoots in [false, true] {
      let anchored = ResolvedTrust(
        anchors: [Data([0x30, 0x00])], trustsSystemRoots: trustsSystemRoots, pins: [pin])
      guard case .use(let used) = anchored.passed(credential) else {
        Issue.record("anchors of the trust's own need the evaluated trust as the credential")
        continue
      }
      #expect(used.user == "evaluated")
    }
  }

  @Test("a WebSocket task refused in its TLS challenge ends with the rejection, not cancelled")
  func webSocketEnd() {
    let cancelled = URLError(.cancelled)
    #expect(
      URLSessionWebSocketEnding.endFailure(cancelled, rejection: Self.refusal) == Self.refusal)
    #expect(
      URLSessionWebSocketEnding.endFailure(cancelled as NSError, rejection: Self.refusal)
        == Self.refusal)
    #expect(URLSessionWebSocketEnding.endFailure(cancelled, rejection: nil) == .cancelled)
    // Another end is its own, and no error is none.
    #expect(
      URLSessionWebSocketEnding.endFailure(
        URLError(.networkConnectionLost), rejection: Self.refusal)
        == .transport(URLError(.networkConnectionLost)))
    #expect(URLSessionWebSocketEnding.endFailure(nil, rejection: Self.refusal) == nil)
  }
}
