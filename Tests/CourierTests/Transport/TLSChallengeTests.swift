import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The routing of TLS challenges to a transport's handler. URLSession sends them on Apple
/// platforms only, so here the session delegate is handed challenges made by the test, as
/// URLSession would hand them.
@Suite("TLS challenges reach the transport's handler")
struct TLSChallengeTests {
  /// Takes nothing: the delegate answers through the completion handler, never the sender.
  final class Sender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
  }

  private func challenge(_ method: String) -> URLAuthenticationChallenge {
    Self.challenge(method)
  }

  /// A challenge of `method` from api.example.com:443, as URLSession would hand it over.
  static func challenge(_ method: String) -> URLAuthenticationChallenge {
    URLAuthenticationChallenge(
      protectionSpace: URLProtectionSpace(
        host: "api.example.com", port: 443, protocol: "https", realm: nil,
        authenticationMethod: method),
      proposedCredential: nil, previousFailureCount: 0, failureResponse: nil, error: nil,
      sender: Sender())
  }

  /// What the delegate answers `challenge` with, for a task whose call is registered, and
  /// the error that call will fail with, if any.
  private func answer(
    _ challenge: URLAuthenticationChallenge, handler: TLSChallengeHandler?,
    clientCredential: ClientCredential? = nil, proxy: ProxyConfiguration? = nil,
    serverTrust: (@Sendable (URLAuthenticationChallenge) -> ResolvedTrust.Decision)? = nil
  ) -> (URLSession.AuthChallengeDisposition, URLCredential?, HTTPError?) {
    let delegate = SessionDelegate(
      tlsChallenges: handler, clientCredential: clientCredential, proxy: proxy,
      serverTrust: serverTrust)
    let session = URLSession(configuration: URLSessionTransport.defaultSessionConfiguration())
    defer { session.invalidateAndCancel() }
    let task = session.dataTask(with: URL(string: "https://api.example.com/")!)
    let call = DataTaskCall()
    delegate.register(call, for: task)
    let (disposition, credential) = answer(challenge, of: task, on: session, by: delegate)
    #expect(delegate.takeRejection(for: task) == nil, "a task with a call keeps nothing aside")
    return (disposition, credential, call.state.withLock { $0.failure })
  }

  /// What `delegate` answers `challenge` of `task` with.
  private func answer(
    _ challenge: URLAuthenticationChallenge, of task: URLSessionTask, on session: URLSession,
    by delegate: SessionDelegate
  ) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
    let answer = Locked<(URLSession.AuthChallengeDisposition, URLCredential?)?>(nil)
    delegate.urlSession(session, task: task, didReceive: challenge) { disposition, credential in
      answer.withLock { $0 = (disposition, credential) }
    }
    return answer.withLock { $0 } ?? (.rejectProtectionSpace, nil)
  }

  @Test("server trust: the handler sees host and port; its trust, default or refusal is applied")
  func serverTrust() {
    let seen = Locked<[String]>([])
    for choice in ["trust", "default", "reject"] {
      let (disposition, given, failure) = answer(
        challenge(TLSChallenge.serverTrustMethod),
        handler: { challenge in
          seen.withLock { $0.append("\(challenge.kind) \(challenge.host):\(challenge.port)") }
          switch choice {
          case "trust": return .use(URLCredential(user: "pinned", password: "", persistence: .none))
          case "default": return .useDefault
          default: return .reject
          }
        })
      switch choice {
      case "trust":
        #expect(disposition == .useCredential)
        #expect(given?.user == "pinned")
        #expect(failure == nil)
      case "default":
        #expect(disposition == .performDefaultHandling)
        #expect(failure == nil)
      default:
        #expect(disposition == .cancelAuthenticationChallenge)
        #expect(failure == .transport(URLError(.serverCertificateUntrusted)))
      }
    }
    #expect(seen.withLock { $0 } == Array(repeating: "serverTrust api.example.com:443", count: 3))
  }

  @Test("a client-certificate challenge refused fails the request as rejected, not cancelled")
  func clientCertificate() {
    let kinds = Locked<[TLSChallenge.Kind]>([])
    let (disposition, _, failure) = answer(
      challenge(TLSChallenge.clientCertificateMethod),
      handler: { challenge in
        kinds.withLock { $0.append(challenge.kind) }
        return .reject
      })
    #expect(kinds.withLock { $0 } == [.clientCertificate])
    #expect(disposition == .cancelAuthenticationChallenge)
    #expect(failure == .transport(URLError(.clientCertificateRejected)))
  }

  @Test("without a handler, TLS challenges get the system's handling; HTTP ones never reach it")
  func defaults() {
    let (disposition, _, failure) = answer(challenge(TLSChallenge.serverTrustMethod), handler: nil)
    #expect(disposition == .performDefaultHandling)
    #expect(failure == nil)

    let called = Locked(false)
    let (basic, _, _) = answer(
      challenge(NSURLAuthenticationMethodHTTPBasic),
      handler: { _ in
        called.withLock { $0 = true }
        return .reject
      })
    #expect(!called.withLock { $0 })
    #expect(basic == ChallengeAnswer.httpAuthentication(on: ChallengeAnswer.platform).disposition)
  }

  @Test("HTTP authentication never gets a credential from URLSession: Apple rejects the space")
  func httpAuthentication() {
    // Apple: `.performDefaultHandling` would answer from the credential storage or the URL.
    let apple = ChallengeAnswer.httpAuthentication(on: .apple)
    #expect(apple == ChallengeAnswer(disposition: .rejectProtectionSpace, declines: false))
    // Linux: declining is what ends the task there (its 401 is rebuilt by the call).
    let linux = ChallengeAnswer.httpAuthentication(on: .foundationNetworking)
    #expect(linux == ChallengeAnswer(disposition: .cancelAuthenticationChallenge, declines: true))
    for method in [
      NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
      NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
      NSURLAuthenticationMethodDefault,
    ] {
      let (disposition, credential, _) = answer(challenge(method), handler: { _ in .useDefault })
      #expect(
        disposition == ChallengeAnswer.httpAuthentication(on: ChallengeAnswer.platform).disposition)
      #expect(disposition != .performDefaultHandling && credential == nil)
    }
  }

  @Test("A proxy's challenge gets the system's handling on Apple platforms; Linux declines it")
  func proxyAuthentication() {
    #expect(
      ChallengeAnswer.httpAuthentication(on: .apple, proxy: true)
        == ChallengeAnswer(disposition: .performDefaultHandling, declines: false))
    #expect(
      ChallengeAnswer.httpAuthentication(on: .foundationNetworking, proxy: true)
        == ChallengeAnswer(disposition: .cancelAuthenticationChallenge, declines: true))
    let proxy = URLAuthenticationChallenge(
      protectionSpace: URLProtectionSpace(
        proxyHost: "proxy.example.com", port: 8080, type: NSURLProtectionSpaceHTTPProxy,
        realm: nil, authenticationMethod: NSURLAuthenticationMethodHTTPBasic),
      proposedCredential: nil, previousFailureCount: 0, failureResponse: nil, error: nil,
      sender: Sender())
    #expect(
      ChallengeAnswer.answer(to: proxy)
        == ChallengeAnswer.httpAuthentication(on: ChallengeAnswer.platform, proxy: true))
    #expect(
      ChallengeAnswer.answer(to: challenge(NSURLAuthenticationMethodHTTPBasic))
        == ChallengeAnswer.httpAuthentication(on: ChallengeAnswer.platform))
  }

  private func proxyChallenge(
    host: String = "proxy.example.com", port: Int = 8080, previousFailureCount: Int = 0
  ) -> URLAuthenticationChallenge {
    URLAuthenticationChallenge(
      protectionSpace: URLProtectionSpace(
        proxyHost: host, port: port, type: NSURLProtectionSpaceHTTPProxy,
        realm: nil, authenticationMethod: NSURLAuthenticationMethodHTTPBasic),
      proposedCredential: nil, previousFailureCount: previousFailureCount, failureResponse: nil,
      error: nil, sender: Sender())
  }

  @Test("a client-certificate challenge left to the default is answered with the identity")
  func clientIdentity() {
    let identity = ClientCredential {
      .success(URLCredential(user: "identity", password: "", persistence: .forSession))
    }
    for handler: TLSChallengeHandler? in [nil, { _ in .useDefault }] {
      let (disposition, credential, failure) = answer(
        challenge(TLSChallenge.clientCertificateMethod), handler: handler,
        clientCredential: identity)
      #expect(disposition == .useCredential)
      #expect(credential?.user == "identity")
      #expect(failure == nil)
    }
    // The handler's own answer wins; server trust never gets the identity.
    let (chosen, own, _) = answer(
      challenge(TLSChallenge.clientCertificateMethod),
      handler: { _ in .use(URLCredential(user: "own", password: "", persistence: .none)) },
      clientCredential: identity)
    #expect(chosen == .useCredential && own?.user == "own")
    let (refused, _, rejection) = answer(
      challenge(TLSChallenge.clientCertificateMethod), handler: { _ in .reject },
      clientCredential: identity)
    #expect(refused == .cancelAuthenticationChallenge)
    #expect(rejection == .transport(URLError(.clientCertificateRejected)))
    let (trust, _, _) = answer(
      challenge(TLSChallenge.serverTrustMethod), handler: nil, clientCredential: identity)
    #expect(trust == .performDefaultHandling)
  }

  /// The trust's refusal the tests' ServerTrust stand-in answers with.
  private static let refusal = ResolvedTrust.refusal(host: "api.example.com", check: .pinnedKey)

  @Test("a server-trust challenge left to the default is the ServerTrust's; the handler goes first")
  func serverTrustEvaluation() {
    let evaluated = Locked(0)
    func trust(_ trusts: Bool) -> @Sendable (URLAuthenticationChallenge) -> ResolvedTrust.Decision {
      { challenge in
        evaluated.withLock { $0 += 1 }
        #expect(challenge.protectionSpace.host == "api.example.com")
        return trusts
          ? .use(URLCredential(user: "trusted", password: "", persistence: .none))
          : .refuse(Self.refusal)
      }
    }
    for handler: TLSChallengeHandler? in [nil, { _ in .useDefault }] {
      let (disposition, credential, failure) = answer(
        challenge(TLSChallenge.serverTrustMethod), handler: handler, serverTrust: trust(true))
      #expect(disposition == .useCredential && credential?.user == "trusted")
      #expect(failure == nil)
      let (refused, _, rejection) = answer(
        challenge(TLSChallenge.serverTrustMethod), handler: handler, serverTrust: trust(false))
      #expect(refused == .cancelAuthenticationChallenge)
      #expect(rejection == Self.refusal)
    }
    #expect(evaluated.withLock { $0 } == 4)
    // The handler's own answer wins, unevaluated; a client certificate never reaches the trust.
    let (own, ownCredential, _) = answer(
      challenge(TLSChallenge.serverTrustMethod),
      handler: { _ in .use(URLCredential(user: "own", password: "", persistence: .none)) },
      serverTrust: trust(false))
    #expect(own == .useCredential && ownCredential?.user == "own")
    let (rejected, _, _) = answer(
      challenge(TLSChallenge.serverTrustMethod), handler: { _ in .reject }, serverTrust: trust(true)
    )
    #expect(rejected == .cancelAuthenticationChallenge)
    let (client, _, _) = answer(
      challenge(TLSChallenge.clientCertificateMethod), handler: nil, serverTrust: trust(true))
    #expect(client == .performDefaultHandling)
    #expect(evaluated.withLock { $0 } == 4)
  }

  @Test("an identity that does not import fails the request as rejected, saying why; once")
  func clientIdentityFails() {
    let imports = Locked(0)
    let broken = ClientCredential {
      imports.withLock { $0 += 1 }
      return .failure(ClientIdentity.rejection(ClientIdentity.importFailure(status: -25293)))
    }
    for _ in 0..<2 {
      let (disposition, credential, failure) = answer(
        challenge(TLSChallenge.clientCertificateMethod), handler: nil, clientCredential: broken)
      #expect(disposition == .cancelAuthenticationChallenge && credential == nil)
      guard case .transport(let error) = failure else {
        Issue.record("expected a transport failure, got \(String(describing: failure))")
        continue
      }
      #expect(error.code == .clientCertificateRejected)
      #expect(error.localizedDescription.contains("wrong passphrase"))
    }
    #expect(imports.withLock { $0 } == 1)
  }

  @Test("the configured proxy's challenge gets its user and password, once; others do not")
  func proxyCredentials() {
    let proxy = ProxyConfiguration.http(
      host: "Proxy.Example.com", port: 8080, username: "svc", password: "s3cret")
    let (disposition, credential, _) = answer(proxyChallenge(), handler: nil, proxy: proxy)
    #expect(disposition == .useCredential)
    #expect(credential?.user == "svc" && credential?.password == "s3cret")

    let system = ChallengeAnswer.httpAuthentication(on: ChallengeAnswer.platform, proxy: true)
    for other in [
      proxyChallenge(previousFailureCount: 1), proxyChallenge(host: "elsewhere.example.com"),
      proxyChallenge(port: 3128),
    ] {
      let (otherDisposition, otherCredential, _) = answer(other, handler: nil, proxy: proxy)
      #expect(otherDisposition == system.disposition && otherCredential == nil)
    }
    let anonymous = ProxyConfiguration.http(host: "proxy.example.com", port: 8080)
    let (none, _, _) = answer(proxyChallenge(), handler: nil, proxy: anonymous)
    #expect(none == system.disposition)
    // An origin's challenge never gets the proxy's credentials.
    let (origin, originCredential, _) = answer(
      challenge(NSURLAuthenticationMethodHTTPBasic), handler: nil, proxy: proxy)
    #expect(origin != .useCredential && originCredential == nil)
  }
}
