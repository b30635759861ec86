import Foundation

/// A ``ServerTrust`` as transports apply it: its certificates read and parsed into DER, its
/// pins decoded. Pure, so that both transports share one reading of the value and its bad
/// input is tested on any platform.
struct ResolvedTrust: Sendable, Equatable {
  /// The certificate authorities, DER, in the order given; empty for the system's roots.
  let anchors: [Data]
  /// Whether the system's roots are trusted too: always when there are no anchors.
  let trustsSystemRoots: Bool
  /// The SHA-256 digests of the public keys a server may present (32 bytes each).
  let pins: [Data]

  /// The anchors as PEM text, one block each (curl takes PEM only in memory).
  var pemAnchors: Data {
    Data(anchors.map(Self.pem).joined().utf8)
  }

  /// `der` as one PEM `CERTIFICATE` block, its base64 in lines of 64 characters.
  static func pem(_ der: Data) -> String {
    let text = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN CERTIFICATE-----\n\(text)\n-----END CERTIFICATE-----\n"
  }
}

extension ServerTrust {
  /// The trust read and checked: ``ResolvedTrust``, or why it cannot be used.
  func resolved() -> Result<ResolvedTrust, HTTPError> {
    Result { () throws(HTTPError) in
      var anchors: [Data] = []
      for certificates in certificateAuthorities {
        anchors += try certificates.parsed()
      }
      return ResolvedTrust(
        anchors: anchors, trustsSystemRoots: anchors.isEmpty || trustsSystemRoots,
        pins: try pinnedPublicKeys.map(Self.pinDigest))
    }
  }

  /// The 32 bytes `pin` stands for: base64, after an optional `sha256//`.
  static func pinDigest(_ pin: String) throws(HTTPError) -> Data {
    var text = pin.trimmingCharacters(in: .whitespacesAndNewlines)
    if text.hasPrefix("sha256//") { text.removeFirst("sha256//".count) }
    guard let digest = Data(base64Encoded: text), digest.count == 32 else {
      throw .invalidRequest(
        reason:
          "the pinned public key \"\(pin)\" is not a base64 SHA-256 hash (44 characters, as "
          + "`openssl dgst -sha256 -binary | base64` prints the hash of a DER public key)")
    }
    return digest
  }
}

extension ServerTrust.Certificates {
  /// The most bytes a file of certificates may hold: a system's whole bundle of roots is a
  /// few hundred kilobytes.
  static let fileLimit = 16 << 20

  /// Where the certificates come from, for error messages.
  private var origin: String {
    switch source {
    case .file(let url): "the certificate file \(url.path)"
    case .data(let data): "the certificate data (\(data.count) bytes)"
    }
  }

  /// The certificates, DER: every `CERTIFICATE` block of PEM text, or the one DER certificate.
  func parsed() throws(HTTPError) -> [Data] {
    let bytes: Data
    switch source {
    case .file(let url):
      // Read as a file the user names: through links, never past the limit, never waiting
      // (a directory, `/dev/zero` or a FIFO named by mistake is refused, not read forever).
      switch FileBytes.load(url.path, atMost: Self.fileLimit, followingLinks: true) {
      case .contents(let contents):
        bytes = contents
      case .missing, .unavailable:
        throw .invalidRequest(
          reason: "the certificate file \(url.path) does not exist or cannot be read")
      case .foreign:
        throw .invalidRequest(
          reason: "the certificate file \(url.path) is not a regular file of at most 16 MiB "
            + "(a directory, a device?)")
      }
    case .data(let data):
      bytes = data
    }
    if let certificates = Self.pemCertificates(bytes) {
      guard !certificates.isEmpty else {
        throw .invalidRequest(reason: "\(origin) holds no PEM certificate that can be read")
      }
      return certificates
    }
    guard DER.isOneElement(bytes) else {
      throw .invalidRequest(reason: "\(origin) is neither PEM nor a DER certificate")
    }
    return [bytes]
  }

  /// The DER of each well-formed `CERTIFICATE` block in `bytes`, or `nil` when `bytes` is not
  /// PEM text at all.
  static func pemCertificates(_ bytes: Data) -> [Data]? {
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.contains("-----BEGIN ") else { return nil }
    var certificates: [Data] = []
    var rest = text[...]
    let begin = "-----BEGIN CERTIFICATE-----"
    let end = "-----END CERTIFICATE-----"
    while let start = rest.range(of: begin), let stop = rest[start.upperBound...].range(of: end) {
      let body = rest[start.upperBound..<stop.lowerBound]
      if let der = Data(base64Encoded: String(body), options: .ignoreUnknownCharacters),
        DER.isOneElement(der)
      {
        certificates.append(der)
      }
      rest = rest[stop.upperBound...]
    }
    return certificates
  }
}

/// Just enough of ASN.1's DER to tell a certificate's bytes from anything else.
enum DER {
  /// Whether `data` is one SEQUENCE whose definite length spans it exactly, as a DER
  /// certificate is.
  static func isOneElement(_ data: Data) -> Bool {
    let bytes = [UInt8](data)
    guard bytes.count >= 2, bytes[0] == 0x30 else { return false }
    let first = Int(bytes[1])
    if first < 0x80 { return bytes.count == 2 + first }
    let count = first & 0x7F
    guard (1...4).contains(count), bytes.count > 2 + count else { return false }
    let length = bytes[2..<(2 + count)].reduce(0) { $0 << 8 | Int($1) }
    return bytes.count == 2 + count + length
  }

  /// The DER length octets of `length`: short form below 128, long form above.
  static func length(_ length: Int) -> [UInt8] {
    guard length >= 0x80 else { return [UInt8(length)] }
    var octets: [UInt8] = []
    var rest = length
    while rest > 0 {
      octets.insert(UInt8(rest & 0xFF), at: 0)
      rest >>= 8
    }
    return [0x80 | UInt8(octets.count)] + octets
  }

  /// One element: `tag`, the length of `contents`, `contents`.
  static func element(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
    [tag] + length(contents.count) + contents
  }
}
