import Foundation

/// Which servers a transport trusts: certificate authorities of your own (a private CA, a test
/// server's certificate), whether the system's roots are still trusted beside them, and the
/// public keys a server must present (pinning). The same value goes to `CurlTransport` and to
/// ``URLSessionTransport``.
///
/// ```swift
/// let trust = ServerTrust(
///   certificateAuthorities: [.file(URL(fileURLWithPath: "/etc/service/ca.pem"))],
///   pinnedPublicKeys: ["n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg="])
/// let transport = URLSessionTransport(trust: trust)   // or CurlTransport(trust: trust)
/// ```
///
/// A server must first be valid for its host name and chain to a trusted root: one of
/// ``certificateAuthorities``, or one of the system's when there are none or when
/// ``trustsSystemRoots`` says so. Then, if ``pinnedPublicKeys`` is not empty, the public key
/// of its own certificate (the leaf) must be one of them. Anything else fails the request with
/// ``HTTPError/transport(_:)``, a `URLError` of `.serverCertificateUntrusted`.
///
/// What cannot be used — a file that cannot be read (or is no regular file of at most 16 MiB: a
/// directory, a device), data that holds no certificate, a pin that is not a base64 SHA-256
/// hash — fails every request with ``HTTPError/invalidRequest(reason:)`` before anything is
/// sent. Files are read once, when the transport is made, through links.
///
/// **App Transport Security** (Apple platforms): a server that chains to certificate
/// authorities of your own is accepted by URLSession only for a host with an exception in the
/// app's `Info.plist`: `NSAppTransportSecurity` → `NSExceptionDomains` → the host →
/// `NSExceptionAllowsInsecureHTTPLoads` = `YES`, the key Apple's documentation names "to be
/// able to loosen the server trust evaluation requirements for HTTPS connections to the
/// domain" (or `NSAllowsLocalNetworking` for local development). Without it, ATS refuses the
/// connection itself and the request fails with the `URLError` URLSession reports, not this
/// trust's. A server that chains to a system root — without authorities of yours, or beside
/// them with ``trustsSystemRoots`` — needs no exception, and neither do pins.
public struct ServerTrust: Sendable, Hashable {
  /// One or more certificates, PEM (`-----BEGIN CERTIFICATE-----`, any number of them) or DER
  /// (one), from a file or from memory.
  public struct Certificates: Sendable, Hashable {
    enum Source: Sendable, Hashable {
      case file(URL)
      case data(Data)
    }

    let source: Source

    /// The certificates in the file at `url`: PEM, or one DER certificate.
    public static func file(_ url: URL) -> Certificates {
      Certificates(source: .file(url))
    }

    /// The certificates in `data`: PEM, or one DER certificate.
    public static func data(_ data: Data) -> Certificates {
      Certificates(source: .data(data))
    }
  }

  /// The certificate authorities a server's chain may end at: roots, or intermediates trusted
  /// as anchors. Empty (the default) for the system's roots.
  public var certificateAuthorities: [Certificates]
  /// Whether the system's roots stay trusted beside ``certificateAuthorities``; `false` by
  /// default, so that a server must chain to one of yours. Without certificate authorities the
  /// system's roots are the anchors, whatever this says.
  public var trustsSystemRoots: Bool
  /// The SHA-256 hashes of the public keys a server may present, base64, in the form curl's
  /// `CURLOPT_PINNEDPUBLICKEY` takes (a `sha256//` before each is accepted too): the hash of the
  /// certificate's DER `SubjectPublicKeyInfo`, as `openssl x509 -in cert.pem -pubkey -noout |
  /// openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64` prints it.
  ///
  /// Only the server's own certificate is checked against them (the leaf, as curl does), on
  /// every connection the transport makes, whatever the host: give the keys of every server it
  /// talks to, and the next key of each before it rotates. Empty (the default) for no pinning.
  public var pinnedPublicKeys: [String]

  /// Trust in `certificateAuthorities` (and the system's roots too, if `trustsSystemRoots`),
  /// with a server's key one of `pinnedPublicKeys` when there are any.
  public init(
    certificateAuthorities: [Certificates] = [], trustsSystemRoots: Bool = false,
    pinnedPublicKeys: [String] = []
  ) {
    self.certificateAuthorities = certificateAuthorities
    self.trustsSystemRoots = trustsSystemRoots
    self.pinnedPublicKeys = pinnedPublicKeys
  }

  /// Whether the trust asks for anything beyond the system's default (authorities or pins).
  var changesDefault: Bool {
    !certificateAuthorities.isEmpty || !pinnedPublicKeys.isEmpty
  }
}
