import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a ``ServerTrust`` answers a server-trust challenge with, and the error a server it
/// refuses fails the request with: pure, so that the messages are tested on Linux too (the
/// evaluation itself is Apple's, in ResolvedTrust+Evaluation+Platform.swift).
extension ResolvedTrust {
  /// The trust's answer to one server-trust challenge.
  enum Decision {
    /// The chain passed against the trust's own anchors (and the pins): URLSession is told to
    /// use the evaluated trust (`.useCredential`), since its default handling would evaluate
    /// against the system's roots alone and refuse the server.
    case use(URLCredential)
    /// The chain passed against the system's roots and the leaf's key is pinned: URLSession's
    /// default handling evaluates it again, with App Transport Security's checks, which a
    /// credential would skip (Apple DTS, developer forums thread 749633: to tighten trust,
    /// "apply your extra checks" and "complete the challenge with `.performDefaultHandling`").
    case performDefaultHandling
    /// Refused: the challenge is cancelled and the request fails with this error.
    case refuse(HTTPError)
  }

  /// The answer for a server that passed the trust's checks: `credential` (the evaluated
  /// `SecTrust`) when the trust set anchors of its own, which URLSession's default handling
  /// would not know; otherwise (pins alone) URLSession's default handling, so that the
  /// system's evaluation and App Transport Security still apply.
  func passed(_ credential: @autoclosure () -> URLCredential) -> Decision {
    anchors.isEmpty ? .performDefaultHandling : .use(credential())
  }

  /// The check a server failed.
  enum Check: Equatable {
    /// The trust's certificate authorities could not be set on the server's `SecTrust`.
    case anchors(status: Int32)
    /// The chain is not valid for the host, or does not end at a trusted authority
    /// (`SecTrustEvaluateWithError` failed, or the challenge carried no trust to evaluate).
    case chain
    /// The chain is trusted, but the leaf's public key is none of the pins.
    case pinnedKey
    /// The chain is trusted, but the leaf's public key is of a kind no pin can match.
    case unsupportedKey
  }

  /// The error a request fails with when the trust refuses its server at `host` by `check`:
  /// ``HTTPError/transport(_:)``, a `URLError` of `.serverCertificateUntrusted` whose
  /// description (and the ``HTTPError``'s) names the check, with the Security framework's own
  /// error (the chain's failure) as its `NSUnderlyingErrorKey`. It holds only the host, the check and that error,
  /// which describes the server's certificates: nothing of the request.
  static func refusal(host: String, check: Check, underlying: (any Error)? = nil) -> HTTPError {
    var reason =
      switch check {
      case .anchors(let status):
        "its certificate authorities could not be set on the server's trust (OSStatus \(status))"
      case .chain:
        "its certificate chain is not valid for the host or does not end at a trusted authority"
      case .pinnedKey:
        "its certificate chain is trusted, but its public key is none of the pinned keys"
      case .unsupportedKey:
        "its certificate chain is trusted, but its public key is of a kind no pin can match "
          + "(pins match RSA keys and elliptic-curve keys on P-256, P-384 and P-521)"
      }
    var userInfo: [String: Any] = [:]
    if let underlying {
      let error = underlying as NSError
      reason += " (\(error.localizedDescription))"
      userInfo[NSUnderlyingErrorKey] = error
    }
    let text = "the ServerTrust refused the server \(host): \(reason)"
    userInfo[NSLocalizedDescriptionKey] = text
    userInfo[HTTPError.reasonKey] = text
    return .transport(URLError(.serverCertificateUntrusted, userInfo: userInfo))
  }
}
