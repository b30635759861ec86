import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A TLS challenge a URLSession task meets: the server's certificate chain to trust or not
/// (to pin it), or the server's request for a client certificate.
///
/// **Apple platforms only**: FoundationNetworking sends no TLS challenges (it verifies the
/// server against the system's CA store itself and has no client-certificate challenge), so
/// on Linux a ``TLSChallengeHandler`` is never called. HTTP authentication challenges (`401`
/// with `WWW-Authenticate`) never come here: credentials are middleware's business.
public struct TLSChallenge {
  /// What the server asks of the client.
  public enum Kind: Sendable, Equatable {
    /// Decide whether to trust the server: on Apple platforms the chain to evaluate is
    /// `challenge.protectionSpace.serverTrust`.
    case serverTrust
    /// The server asks for a client certificate: answer with
    /// `URLCredential(identity:certificates:persistence:)`.
    case clientCertificate
  }

  /// What the server asks of the client.
  public let kind: Kind
  /// The server's host.
  public let host: String
  /// The server's port.
  public let port: Int
  /// URLSession's challenge, for what Courier does not model (the `SecTrust` to evaluate).
  public let challenge: URLAuthenticationChallenge

  /// The TLS challenge in `challenge`, or `nil` for any other kind (HTTP authentication).
  init?(_ challenge: URLAuthenticationChallenge) {
    switch challenge.protectionSpace.authenticationMethod {
    case Self.serverTrustMethod: kind = .serverTrust
    case Self.clientCertificateMethod: kind = .clientCertificate
    default: return nil
    }
    host = challenge.protectionSpace.host
    port = challenge.protectionSpace.port
    self.challenge = challenge
  }

  /// The error a request fails with when its challenge is rejected.
  var rejection: HTTPError {
    switch kind {
    case .serverTrust: .transport(URLError(.serverCertificateUntrusted))
    case .clientCertificate: .transport(URLError(.clientCertificateRejected))
    }
  }
}

/// How a ``TLSChallengeHandler`` answers a ``TLSChallenge``.
public enum TLSChallengeAnswer {
  /// What the system would do: evaluate the server against the trusted roots, present no
  /// client certificate.
  case useDefault
  /// Trust the server (`URLCredential(trust:)`) or present this client identity.
  case use(URLCredential)
  /// Refuse: the request (or the WebSocket's opening) fails with ``HTTPError/transport(_:)``, a
  /// `URLError` of `.serverCertificateUntrusted` (server trust) or `.clientCertificateRejected`.
  case reject
}

/// Answers the TLS challenges of a ``URLSessionTransport``'s tasks, synchronously on
/// URLSession's delegate queue (evaluating a trust with `SecTrustEvaluateWithError` there is
/// what Apple's documentation shows). Custom certificate authorities and pinned keys need no
/// handler: give the transport a ``ServerTrust``, which evaluates what a handler leaves to
/// ``TLSChallengeAnswer/useDefault``; a handler is for rules of your own.
public typealias TLSChallengeHandler = @Sendable (TLSChallenge) -> TLSChallengeAnswer
