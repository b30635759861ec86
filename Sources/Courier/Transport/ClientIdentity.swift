import Foundation

/// A client certificate and its private key, which a transport presents when a server asks
/// for one (mutual TLS): from PEM files, or from PKCS#12 data.
///
/// ```swift
/// var configuration = CurlTransport.Configuration()
/// configuration.clientIdentity = .pem(
///   certificate: URL(fileURLWithPath: "/etc/service/client.pem"),
///   key: URL(fileURLWithPath: "/etc/service/client.key"))
/// let client = HTTPClient(baseURL: api, transport: CurlTransport(configuration: configuration))
/// ```
///
/// The passphrase is a credential: no description, mirror or log of the identity shows it.
public struct ClientIdentity: Sendable, CustomStringConvertible, CustomReflectable {
  /// Where the certificate and key come from.
  enum Source: Sendable, Equatable {
    case pem(certificate: URL, key: URL)
    case pkcs12(Data)
  }

  let source: Source
  /// The passphrase that unlocks the key (PEM) or the bundle (PKCS#12), if any.
  let passphrase: String?

  /// A certificate (its chain after it, if the server needs the intermediates) and its
  /// private key, in PEM files; `passphrase` unlocks an encrypted key. Files that cannot be
  /// used (no PEM certificate or key in them, an encrypted key without the passphrase, a
  /// directory, a chain whose first certificate issued one after it) fail every request with ``HTTPError/invalidRequest(reason:)`` naming the file,
  /// before anything is sent. Links are followed. ``CurlTransport`` presents it;
  /// ``URLSessionTransport`` on Apple platforms refuses every request that would present it
  /// (Apple has no public API to pair a PEM key with its certificate): give it
  /// ``pkcs12(_:passphrase:)`` there.
  public static func pem(certificate: URL, key: URL, passphrase: String? = nil) -> ClientIdentity {
    ClientIdentity(source: .pem(certificate: certificate, key: key), passphrase: passphrase)
  }

  /// A PKCS#12 bundle (a `.p12` or `.pfx` file's bytes) of the certificate, its chain and its
  /// private key, unlocked by `passphrase`.
  public static func pkcs12(_ data: Data, passphrase: String) -> ClientIdentity {
    ClientIdentity(source: .pkcs12(data), passphrase: passphrase)
  }

  /// What the identity is, without its passphrase.
  public var description: String {
    let secret = passphrase == nil ? "" : ", passphrase: <redacted>"
    switch source {
    case .pem(let certificate, let key):
      return
        "ClientIdentity(PEM \(certificate.lastPathComponent), key \(key.lastPathComponent)\(secret))"
    case .pkcs12(let data):
      return "ClientIdentity(PKCS#12, \(data.count) bytes\(secret))"
    }
  }

  /// No children: a dump of the identity shows its description, never the passphrase.
  public var customMirror: Mirror {
    Mirror(self, children: [], displayStyle: .struct)
  }
}

/// The lowest TLS version a transport accepts from a server.
public enum TLSVersion: Sendable, Hashable {
  /// TLS 1.2 (RFC 5246).
  case tls12
  /// TLS 1.3 (RFC 8446).
  case tls13
}
