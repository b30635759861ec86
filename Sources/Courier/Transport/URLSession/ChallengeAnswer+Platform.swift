import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How Courier answers a task's authentication challenge on this platform: the one place
/// where the platforms differ on challenges. Courier never supplies a credential itself
/// (that is middleware's business, see ``BearerAuthentication``); what it must do is let a
/// `401` reach the caller, never leave a task waiting.
struct ChallengeAnswer {
  /// What to hand the challenge's completion handler.
  let disposition: URLSession.AuthChallengeDisposition
  /// Whether the answer declines the challenge, after which the call must take the 401 as
  /// its answer (the task then completes as cancelled).
  let declines: Bool

  #if canImport(FoundationNetworking)
    /// Linux (FoundationNetworking): every task challenge is HTTP authentication (there are
    /// no server-trust or client-certificate ones). Swift 6.3.1 leaves a task suspended
    /// forever when a `Basic` challenge gets no credential, also with `.performDefaultHandling`
    /// (its issue 5456), and crashes on `.useCredential` with none; declining is the one
    /// answer that ends the task on every version, as cancelled, which the call turns back
    /// into the 401.
    static let platform = ChallengeAnswer(
      disposition: .cancelAuthenticationChallenge, declines: true)
  #else
    /// Apple platforms: server trust and client certificates as the system decides, and HTTP
    /// authentication with no stored credential delivers the 401 as it is.
    static let platform = ChallengeAnswer(disposition: .performDefaultHandling, declines: false)
  #endif
}

extension TLSChallenge {
  #if canImport(FoundationNetworking)
    /// Linux: FoundationNetworking declares no TLS authentication methods (it sends no TLS
    /// challenges); these are the values of Apple's constants, so that the same routing runs
    /// (and is tested) here.
    static let serverTrustMethod = "NSURLAuthenticationMethodServerTrust"
    static let clientCertificateMethod = "NSURLAuthenticationMethodClientCertificate"
  #else
    /// Apple platforms: Foundation's own constants.
    static let serverTrustMethod = NSURLAuthenticationMethodServerTrust
    static let clientCertificateMethod = NSURLAuthenticationMethodClientCertificate
  #endif
}
