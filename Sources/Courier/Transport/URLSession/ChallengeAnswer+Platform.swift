import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How Courier answers a task's HTTP authentication challenge (any challenge but server trust
/// and client certificates, which go to ``TLSChallengeHandler``): the one place where the
/// platforms differ on challenges. Courier never supplies a credential itself (that is
/// middleware's business, see ``BearerAuthentication``), nor lets URLSession supply one from
/// its credential storage or the URL; what it must do is let a `401` reach the caller, never
/// leave a task waiting.
struct ChallengeAnswer: Equatable {
  /// What to hand the challenge's completion handler.
  let disposition: URLSession.AuthChallengeDisposition
  /// Whether the answer declines the challenge, after which the call must take the 401 as
  /// its answer (the task then completes as cancelled).
  let declines: Bool

  /// The URLSession implementations Courier runs on.
  enum Platform {
    /// swift-corelibs-foundation's, on Linux.
    case foundationNetworking
    /// Apple's.
    case apple
  }

  /// The answer on `platform`; a pure rule, so that both platforms' answers are tested here.
  ///
  /// - FoundationNetworking: every task challenge is HTTP authentication. Swift 6.3.1 leaves
  ///   a task suspended forever when a `Basic` challenge gets no credential, also with
  ///   `.performDefaultHandling` (its issue 5456), and crashes on `.useCredential` with none;
  ///   declining is the one answer that ends the task on every version, as cancelled, which
  ///   the call turns back into the 401.
  /// - Apple: `.rejectProtectionSpace` ("Reject this challenge, and call the authentication
  ///   delegate method again with the next authentication protection space"; Apple's
  ///   documentation of `URLSession.AuthChallengeDisposition`): each protection space the
  ///   server offers is refused, and with none left the task completes with the 401 as it is.
  ///   `.performDefaultHandling` would let URLSession answer from its credential storage or
  ///   from a user and password in the URL. A proxy's challenge (`407`) is the exception: the
  ///   system's proxy credentials go to the proxy, never to the origin, so it gets the
  ///   system's handling, as an app behind an authenticating proxy needs.
  static func httpAuthentication(on platform: Platform, proxy: Bool = false) -> ChallengeAnswer {
    switch platform {
    case .foundationNetworking:
      ChallengeAnswer(disposition: .cancelAuthenticationChallenge, declines: true)
    case .apple where proxy:
      ChallengeAnswer(disposition: .performDefaultHandling, declines: false)
    case .apple:
      ChallengeAnswer(disposition: .rejectProtectionSpace, declines: false)
    }
  }

  /// The answer to `challenge` (HTTP authentication, from the origin or a proxy) here.
  static func answer(to challenge: URLAuthenticationChallenge) -> ChallengeAnswer {
    httpAuthentication(on: platform, proxy: challenge.protectionSpace.isProxy())
  }

  #if canImport(FoundationNetworking)
    /// Linux: FoundationNetworking's.
    static let platform = Platform.foundationNetworking
  #else
    /// Apple platforms: Apple's.
    static let platform = Platform.apple
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
