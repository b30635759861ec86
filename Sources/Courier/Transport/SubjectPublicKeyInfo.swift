import Foundation

/// A public key's DER `SubjectPublicKeyInfo` (RFC 5280 §4.1.2.7): what a pin is the SHA-256
/// hash of, built from the bare key Apple's `SecKeyCopyExternalRepresentation` gives (RSA: the
/// PKCS #1 `RSAPublicKey`; elliptic curves: the uncompressed ANSI X9.63 point, `04 ‖ X ‖ Y`).
/// Pure, so that it is checked against `openssl pkey -pubin -outform der` on any platform.
enum SubjectPublicKeyInfo {
  /// The kinds of key a certificate may hold that pins can match.
  enum Kind: Sendable, Equatable {
    case rsa
    case ellipticCurve
  }

  /// The kind of the key whose external representation is `key`, told by its first byte as
  /// Apple's page of `SecKeyCopyExternalRepresentation` documents the two formats: an RSA key
  /// is PKCS #1, a DER `SEQUENCE` (`0x30`); an elliptic-curve public key is ANSI X9.63's
  /// uncompressed point, `04 ‖ X ‖ Y`. `nil` for anything else. (Read from the bytes rather
  /// than from `SecKeyCopyAttributes`' `kSecAttrKeyType`, a value whose Core Foundation type
  /// Apple does not document.) ``der(of:kind:)`` checks the rest.
  static func kind(ofExternalRepresentation key: Data) -> Kind? {
    switch key.first {
    case 0x30: .rsa
    case 0x04: .ellipticCurve
    default: nil
    }
  }

  /// The `SubjectPublicKeyInfo` of a key of `kind` whose external representation is `key`;
  /// `nil` for a key this cannot describe (an elliptic curve other than P-256, P-384 and P-521,
  /// or bytes that are not such a key).
  static func der(of key: Data, kind: Kind) -> Data? {
    let bytes = [UInt8](key)
    let algorithm: [UInt8]
    switch kind {
    case .rsa:
      // rsaEncryption (RFC 3279 §2.3.1), its parameters NULL.
      guard DER.isOneElement(key) else { return nil }
      algorithm = DER.element(0x06, rsaEncryption) + [0x05, 0x00]
    case .ellipticCurve:
      // id-ecPublicKey with the named curve (RFC 5480 §2.1.1), known by the point's length.
      guard bytes.first == 0x04, let curve = curves[bytes.count] else { return nil }
      algorithm = DER.element(0x06, ecPublicKey) + DER.element(0x06, curve)
    }
    // SEQUENCE { SEQUENCE { algorithm }, BIT STRING { no unused bits, the key } }
    let info = DER.element(
      0x30, DER.element(0x30, algorithm) + DER.element(0x03, [0x00] + bytes))
    return Data(info)
  }

  /// The pin of a key: the SHA-256 digest of its `SubjectPublicKeyInfo`.
  static func pin(of key: Data, kind: Kind) -> Data? {
    der(of: key, kind: kind).map { info in
      var hash = SHA256()
      hash.update(info)
      return Data(hash.finalize())
    }
  }

  /// 1.2.840.113549.1.1.1
  private static let rsaEncryption: [UInt8] = [
    0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01,
  ]
  /// 1.2.840.10045.2.1
  private static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
  /// The named curves by the length of their uncompressed point: P-256 (1.2.840.10045.3.1.7),
  /// P-384 (1.3.132.0.34), P-521 (1.3.132.0.35).
  private static let curves: [Int: [UInt8]] = [
    65: [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07],
    97: [0x2B, 0x81, 0x04, 0x00, 0x22],
    133: [0x2B, 0x81, 0x04, 0x00, 0x23],
  ]
}
