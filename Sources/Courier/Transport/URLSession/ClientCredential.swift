import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The credential a ``URLSessionTransport`` answers a client-certificate challenge with when
/// its ``TLSChallengeHandler`` leaves the challenge to the default: its ``ClientIdentity``,
/// imported when a server first asks for it and kept for the transport's life.
///
/// `@unchecked Sendable`: the result is written once, under the lock, and a `URLCredential`
/// is immutable.
final class ClientCredential: @unchecked Sendable {
  private let lock = NSLock()
  private var resolved: Result<URLCredential, HTTPError>?
  private let resolve: @Sendable () -> Result<URLCredential, HTTPError>

  /// A credential made by `resolve`, called once, on the first challenge.
  init(resolve: @escaping @Sendable () -> Result<URLCredential, HTTPError>) {
    self.resolve = resolve
  }

  /// `identity`'s credential (see `ClientIdentity+Credential+Platform.swift`).
  convenience init(_ identity: ClientIdentity) {
    self.init { identity.urlCredential() }
  }

  /// The credential, or why there is none (the request then fails with it).
  var result: Result<URLCredential, HTTPError> {
    lock.lock()
    defer { lock.unlock() }
    if let resolved { return resolved }
    let result = resolve()
    resolved = result
    return result
  }
}

extension ClientIdentity {
  /// The error a request fails with when its identity cannot be presented: the server's
  /// request for a certificate is refused as `URLError.clientCertificateRejected`, whose
  /// description says why (never the passphrase).
  static func rejection(_ reason: String) -> HTTPError {
    .transport(
      URLError(
        .clientCertificateRejected,
        userInfo: [NSLocalizedDescriptionKey: "The client identity was not presented: \(reason)"]))
  }

  /// Why `SecPKCS12Import` refused a bundle, from its result code (Apple's documentation of
  /// `SecPKCS12Import(_:_:_:)` and of the Security framework's result codes).
  static func importFailure(status: Int32) -> String {
    switch status {
    case -25293:  // errSecAuthFailed
      "the PKCS#12 bundle did not import: wrong passphrase, or damaged data (errSecAuthFailed)"
    case -26275:  // errSecDecode
      "the PKCS#12 bundle did not import: it is not PKCS#12 data, or it is malformed (errSecDecode)"
    default:
      "the PKCS#12 bundle did not import (SecPKCS12Import's OSStatus \(status))"
    }
  }
}
