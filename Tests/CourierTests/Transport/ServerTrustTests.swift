import Foundation
import Testing

@testable import Courier

/// How a ``ServerTrust`` is read: certificates from PEM and DER, pins in curl's form, and bad
/// input as a reason; the `SubjectPublicKeyInfo` Apple's pinning hashes, against OpenSSL's; and
/// on Linux what CurlTransport sets from it.
@Suite("ServerTrust: certificates, pins and public keys")
struct ServerTrustTests {
  /// A small self-signed certificate (P-256, `openssl req -x509 -newkey ec … -outform der`).
  static let der = Data(
    base64Encoded:
      "MIIBfzCCASWgAwIBAgIUQZ9V2VnvhY6akOSp4XBICZYOThgwCgYIKoZIzj0EAwIwFTETMBEGA1UEAwwKY291cmll"
      + "ci1jYTAeFw0yNjExMjkwMTM3MDhaFw0yNjExMzAwMTM3MDhaMBUxEzARBgNVBAMMCmNvdXJpZXItY2EwWTATBgcq"
      + "hkjOPQIBBggqhkjOPQMBBwNCAAThdA1R7djnNp8b2WBwKEAEi0mp3CeU2nuoYfXOGGkw+FhztLAM2EA/Z83Kz6rO"
      + "7/Ko3swwWSl1r0tbvtofe7heo1MwUTAdBgNVHQ4EFgQU2LgYSkms0mWJGdFx6k54fPefBNwwHwYDVR0jBBgwFoAU"
      + "2LgYSkms0mWJGdFx6k54fPefBNwwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEA4bsdt1g9pLP/"
      + "zTKW6Y4n2tWFE5xmz3aaygaPbmm93icCIFCGiOczUajzAXSiy9due5bD4ihP0SGH3M3aDBepJD4G"
  )!

  @Test("PEM text gives every certificate block, in order; DER gives itself")
  func certificates() throws {
    #expect(DER.isOneElement(Self.der))
    let pem = ResolvedTrust.pem(Self.der) + "junk between\n" + ResolvedTrust.pem(Self.der)
    let trust = ServerTrust(certificateAuthorities: [.data(Data(pem.utf8)), .data(Self.der)])
    let resolved = try trust.resolved().get()
    #expect(resolved.anchors == [Self.der, Self.der, Self.der])
    #expect(!resolved.trustsSystemRoots)
    #expect(
      String(decoding: resolved.pemAnchors, as: UTF8.self).components(
        separatedBy: "-----BEGIN CERTIFICATE-----"
      ).count == 4)
    // Read back, the PEM curl is given is the same certificates.
    #expect(ServerTrust.Certificates.pemCertificates(resolved.pemAnchors) == resolved.anchors)
  }

  @Test("without authorities the system's roots are the anchors, whatever trustsSystemRoots says")
  func systemRoots() throws {
    #expect(try ServerTrust().resolved().get().trustsSystemRoots)
    #expect(try ServerTrust(trustsSystemRoots: false).resolved().get().trustsSystemRoots)
    #expect(!ServerTrust(trustsSystemRoots: true).changesDefault)
    #expect(ServerTrust(pinnedPublicKeys: ["x"]).changesDefault)
    let both = ServerTrust(certificateAuthorities: [.data(Self.der)], trustsSystemRoots: true)
    #expect(try both.resolved().get().trustsSystemRoots)
  }

  @Test("a pin is 32 bytes of base64, with or without curl's sha256// and spaces around")
  func pins() throws {
    let digest = Data((0..<32).map { UInt8($0) })
    let base64 = digest.base64EncodedString()
    for pin in [base64, "sha256//\(base64)", " \(base64)\n"] {
      #expect(try ServerTrust.pinDigest(pin) == digest)
    }
    for bad in [
      "", "sha256//", "not base64!", Data(count: 31).base64EncodedString(), "sha1//\(base64)",
    ] {
      #expect(throws: HTTPError.self) { try ServerTrust.pinDigest(bad) }
    }
  }

  @Test("bad certificates are refused with a reason that names them")
  func badCertificates() {
    func reason(_ certificates: ServerTrust.Certificates) -> String? {
      guard
        case .failure(.invalidRequest(let reason)) =
          ServerTrust(certificateAuthorities: [certificates]).resolved()
      else { return nil }
      return reason
    }
    #expect(
      reason(.file(URL(fileURLWithPath: "/nonexistent/ca.pem")))?.contains("/nonexistent/ca.pem")
        == true)
    #expect(reason(.data(Data()))?.contains("neither PEM nor") == true)
    #expect(reason(.data(Self.der.dropLast()))?.contains("neither PEM nor") == true)
    #expect(
      reason(.data(Data("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----".utf8)))?
        .contains("no PEM certificate") == true)
    #expect(
      reason(.data(Data("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----".utf8)))?
        .contains("no PEM certificate") == true)
    #expect(reason(.data(Self.der)) == nil)
  }

  @Test("a certificate file that is a directory, a device or too large is refused, not read")
  func unreadableFiles() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-trust-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    // A sparse file past the limit, made at once.
    let huge = directory.appendingPathComponent("huge.pem")
    #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
    let handle = try FileHandle(forWritingTo: huge)
    try handle.truncate(atOffset: UInt64(ServerTrust.Certificates.fileLimit + 1))
    try handle.close()
    // A bundle reached through a link (as /etc/ssl/certs holds them) is read at its target.
    let bundle = directory.appendingPathComponent("bundle.pem")
    try Data(ResolvedTrust.pem(Self.der).utf8).write(to: bundle)
    let link = directory.appendingPathComponent("linked.pem")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: bundle)
    let cases = [directory, huge, URL(fileURLWithPath: "/dev/zero")]
    for url in cases {
      let result = ServerTrust(certificateAuthorities: [.file(url)]).resolved()
      guard case .failure(.invalidRequest(let reason)) = result else {
        Issue.record("\(url.path): \(result)")
        continue
      }
      #expect(reason.contains(url.path) && reason.contains("not a regular file"), "\(reason)")
    }
    let linked = try ServerTrust(certificateAuthorities: [.file(link)]).resolved().get()
    #expect(linked.anchors == [Self.der])
  }

  @Test(
    "DER lengths: short and long forms, exactly spanning the data",
    arguments: [0, 1, 127, 128, 255, 256, 65_536])
  func derLengths(length: Int) {
    let element = Data(DER.element(0x30, [UInt8](repeating: 1, count: length)))
    #expect(DER.isOneElement(element))
    #expect(!DER.isOneElement(element + [0]))
    #expect(!DER.isOneElement(element.dropLast()))
  }

  @Test("a key's SubjectPublicKeyInfo and pin are OpenSSL's", arguments: PublicKeyFixture.all)
  func subjectPublicKeyInfo(key: PublicKeyFixture) throws {
    let raw = try #require(Data(base64Encoded: key.raw))
    let info = SubjectPublicKeyInfo.der(of: raw, kind: key.kind)
    #expect(info == Data(base64Encoded: key.subjectPublicKeyInfo))
    #expect(SubjectPublicKeyInfo.pin(of: raw, kind: key.kind)?.base64EncodedString() == key.pin)
    // The wrong kind, or bytes that are no key of it, make none.
    #expect(
      SubjectPublicKeyInfo.der(of: raw, kind: key.kind == .rsa ? .ellipticCurve : .rsa) == nil)
    #expect(SubjectPublicKeyInfo.der(of: raw.dropLast(), kind: key.kind) == nil)
    // Its kind is told by its first byte, as Apple documents the external representation.
    #expect(SubjectPublicKeyInfo.kind(ofExternalRepresentation: raw) == key.kind)
  }

  @Test("a representation that is neither PKCS #1 nor an uncompressed point has no kind")
  func unknownKind() {
    for bytes: [UInt8] in [[], [0x02, 0x01], [0x03, 0x01], [0x00, 0x30]] {
      #expect(SubjectPublicKeyInfo.kind(ofExternalRepresentation: Data(bytes)) == nil)
    }
  }

  #if canImport(FoundationNetworking)
    @Test(
      "CurlTransport: your authorities alone clear the system's directory; beside it, it stays")
    func curlSettings() throws {
      let system = Data("SYSTEM BUNDLE\n".utf8)
      let pin = Data(repeating: 9, count: 32).base64EncodedString()
      let mine = Data(ResolvedTrust.pem(Self.der).utf8)
      func trust(_ trust: ServerTrust, directory: String?) throws -> CurlTransport.Trust {
        CurlTransport.Trust(
          try trust.resolved().get(), systemDirectory: directory, systemBundle: system)
      }
      let only = try trust(
        ServerTrust(
          certificateAuthorities: [.data(Self.der)], pinnedPublicKeys: [pin, "sha256//\(pin)"]),
        directory: "/etc/ssl/certs")
      #expect(only.directory == .cleared)
      #expect(only.authorities == mine)
      #expect(only.pins == "sha256//\(pin);sha256//\(pin)")

      let alongside = ServerTrust(
        certificateAuthorities: [.data(Self.der)], trustsSystemRoots: true)
      let withDirectory = try trust(alongside, directory: "/etc/ssl/certs")
      #expect(withDirectory.directory == .path("/etc/ssl/certs"))
      #expect(withDirectory.authorities == mine && withDirectory.pins == nil)
      // Without a directory of hashed roots, the system's bundle follows yours in the blob.
      let withBundle = try trust(alongside, directory: nil)
      #expect(withBundle.directory == .libraryDefault)
      #expect(withBundle.authorities == mine + system)

      let pinsOnly = try trust(ServerTrust(pinnedPublicKeys: [pin]), directory: "/etc/ssl/certs")
      #expect(pinsOnly.authorities == nil && pinsOnly.directory == .libraryDefault)

      // A trust that asks for nothing sets nothing; one that cannot be used fails every request.
      var configuration = CurlTransport.Configuration()
      configuration.trust = ServerTrust(trustsSystemRoots: true)
      #expect(CurlTransport.Settings(configuration).trust == nil)
      configuration.trust = ServerTrust(pinnedPublicKeys: ["nope"])
      #expect(throws: HTTPError.self) { try CurlTransport.Settings(configuration).trust?.get() }
    }

    @Test("the system's directory is found by OpenSSL's hashed names")
    func hashedNames() {
      for name in ["9d66eef0.0", "002c0b4f.12"] { #expect(CurlTransport.Trust.isHashedName(name)) }
      for name in [
        "ca-certificates.crt", "9d66eef0", "9d66eef.0", "9d66eefg.0", "9d66eef0.", "9d66eef0.0.1",
      ] {
        #expect(!CurlTransport.Trust.isHashedName(name))
      }
    }
  #endif
}
