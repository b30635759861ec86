import Foundation
import Testing

@testable import Courier

/// The order of a PEM identity's chain, read from certificates' names alone (no TLS).
@Suite("A client identity's PEM chain order")
struct ClientIdentityChainOrderTests {
  /// A DER name whose one attribute is `common`.
  static func name(_ common: String) -> [UInt8] {
    let attribute = DER.element(0x06, [0x55, 0x04, 0x03]) + DER.element(0x0C, Array(common.utf8))
    return DER.element(0x30, DER.element(0x31, DER.element(0x30, attribute)))
  }

  /// A certificate's DER shape, with a version, `subject` issued by `issuer`.
  static func certificate(_ subject: String, issuedBy issuer: String) -> Data {
    let tbs =
      DER.element(0xA0, DER.element(0x02, [2])) + DER.element(0x02, [1])
      + DER.element(0x30, []) + name(issuer) + DER.element(0x30, []) + name(subject)
      + DER.element(0x30, [])
    return Data(
      DER.element(0x30, DER.element(0x30, tbs) + DER.element(0x30, []) + DER.element(0x03, [0])))
  }

  let file = URL(fileURLWithPath: "/secrets/client.pem")
  let authority = certificate("ca", issuedBy: "ca")
  let intermediate = certificate("intermediate", issuedBy: "ca")
  let leaf = certificate("client", issuedBy: "intermediate")

  @Test("an issuer before the certificate it issued is refused, naming the file and which")
  func outOfOrder() {
    for chain in [
      [intermediate, leaf], [authority, intermediate, leaf], [intermediate, authority, leaf],
    ] {
      let reason = ClientIdentity.chainOrderRefusal(chain, file: file)?.invalidRequestReason
      #expect(reason?.contains("/secrets/client.pem") == true, "\(chain.count)")
      #expect(reason?.contains("first") == true)
    }
  }

  @Test("the client's certificate first, then its issuers, or one alone, is taken")
  func inOrder() {
    for chain in [[leaf], [leaf, intermediate], [leaf, intermediate, authority], [authority]] {
      #expect(ClientIdentity.chainOrderRefusal(chain, file: file) == nil, "\(chain.count)")
    }
  }

  @Test("bytes that are not a whole certificate are no names, and never read out of bounds")
  func truncated() {
    #expect(CertificateNames(der: leaf)?.subject == Self.name("client")[...])
    #expect(CertificateNames(der: leaf)?.issuer == Self.name("intermediate")[...])
    for count in 0..<leaf.count {
      #expect(CertificateNames(der: leaf.prefix(count)) == nil, "\(count)")
    }
    #expect(CertificateNames(der: Data([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x30])) == nil)
    #expect(ClientIdentity.chainOrderRefusal([Data([0x30]), leaf], file: file) == nil)
  }
}
