import Foundation

extension ClientIdentity {
  /// Why the certificates of a PEM identity's `file`, in their order there, cannot be its
  /// chain, or `nil`: the TLS library takes the first as the client's own (RFC 8446 §4.4.2:
  /// the sender's certificate first, then each one certifying the one before), so a file
  /// whose first certificate issued one after it (an intermediate or the authority written
  /// before the client's certificate) fails in OpenSSL's words as a key that does not match
  /// its certificate, though the key is right. Certificates this cannot read are left to the
  /// TLS library.
  static func chainOrderRefusal(_ certificates: [Data], file: URL) -> HTTPError? {
    guard certificates.count > 1, let first = CertificateNames(der: certificates[0]) else {
      return nil
    }
    for (index, certificate) in certificates.enumerated().dropFirst() {
      guard let later = CertificateNames(der: certificate), later.subject != first.subject,
        later.issuer == first.subject
      else { continue }
      return .invalidRequest(
        reason: "the client identity's certificate file \(file.path) is out of order: its "
          + "first certificate issued its certificate \(index + 1). The client's own "
          + "certificate (the one the key belongs to) must come first, then the certificates "
          + "that issued it, each after the one it issued")
    }
    return nil
  }
}

/// A DER certificate's issuer and subject names (RFC 5280 §4.1.2.4, §4.1.2.6), each as its
/// DER bytes: one certificate issued another when its subject is the other's issuer.
struct CertificateNames: Equatable {
  let issuer: ArraySlice<UInt8>
  let subject: ArraySlice<UInt8>

  /// The names of the certificate `der`; `nil` when it is not one this can read.
  init?(der: Data) {
    let bytes = [UInt8](der)
    // Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL,
    //   serialNumber, signature, issuer, validity, subject, … }, … }
    guard let certificate = DER.elements(in: bytes[...]).first, certificate.tag == 0x30,
      let tbs = DER.elements(in: certificate.contents).first, tbs.tag == 0x30
    else { return nil }
    var fields = DER.elements(in: tbs.contents)[...]
    if fields.first?.tag == 0xA0 { fields = fields.dropFirst() }
    let names = Array(fields.prefix(5))
    guard names.count == 5, names[2].tag == 0x30, names[4].tag == 0x30 else { return nil }
    issuer = names[2].whole
    subject = names[4].whole
  }
}

extension DER {
  /// One element read from DER bytes: its tag, its contents, and the whole element.
  struct Element {
    let tag: UInt8
    let contents: ArraySlice<UInt8>
    let whole: ArraySlice<UInt8>
  }

  /// The elements `bytes` holds one after another, up to the first that does not read as a
  /// definite-length element (none after it).
  static func elements(in bytes: ArraySlice<UInt8>) -> [Element] {
    var elements: [Element] = []
    var index = bytes.startIndex
    while index + 2 <= bytes.endIndex {
      let tag = bytes[index]
      var length = Int(bytes[index + 1])
      var start = index + 2
      if length >= 0x80 {
        let count = length & 0x7F
        guard (1...4).contains(count), start + count <= bytes.endIndex else { break }
        // Read wide, and compared before it becomes an Int: four bytes of 0xFF are -1 in a
        // 32-bit Int (armv7, arm64_32), which the bound below would let through.
        let wide = bytes[start..<(start + count)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        start += count
        guard wide <= UInt64(bytes.endIndex - start) else { break }
        length = Int(wide)
      }
      guard length <= bytes.endIndex - start else { break }
      let end = start + length
      elements.append(
        Element(tag: tag, contents: bytes[start..<end], whole: bytes[index..<end]))
      index = end
    }
    return elements
  }
}
