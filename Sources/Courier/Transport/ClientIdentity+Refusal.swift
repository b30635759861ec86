import Foundation

extension ClientIdentity {
  /// The most bytes a PEM file of an identity may hold: a certificate chain or a key is a few
  /// kilobytes, so anything larger is not one (a disk image named by mistake).
  static let pemFileLimit = 1 << 20

  /// Why the identity cannot be used, found before anything is sent; `nil` when it may be.
  /// PEM files are read as a transport would read them: each must be a regular file (a link
  /// is followed) of at most ``pemFileLimit`` bytes, the certificate's must hold a PEM
  /// certificate (not DER, not a certificate request, not nothing), the client's own first
  /// when it holds a chain (``chainOrderRefusal(_:file:)``), and the key's a PEM private
  /// key; a key that is encrypted needs the passphrase, which OpenSSL would otherwise ask for
  /// on the terminal, holding every transfer of the transport while it waits. The reason names
  /// the file and what is wrong, never its content or the passphrase. (A wrong passphrase, or
  /// a key that is not the certificate's, fails the request with
  /// `URLError.clientCertificateRejected`, in the TLS library's words.)
  func refusal() -> HTTPError? {
    guard case .pem(let certificate, let key) = source else { return nil }
    let read = Self.pemText(certificate).flatMap { certificateText in
      Self.pemText(key).map { (certificateText, $0) }
    }
    switch read {
    case .failure(let error):
      return error
    case .success(let (certificateText, keyText)):
      guard certificateText.contains("-----BEGIN "), certificateText.contains("CERTIFICATE-----")
      else {
        return .invalidRequest(
          reason: "the client identity's certificate file \(certificate.path) holds no PEM "
            + "certificate (-----BEGIN CERTIFICATE-----): a DER one converts with `openssl x509 "
            + "-inform der -in client.der -out client.pem`; a certificate request is not one")
      }
      guard keyText.contains("-----BEGIN "), keyText.contains("PRIVATE KEY-----") else {
        return .invalidRequest(
          reason: "the client identity's key file \(key.path) holds no PEM private key "
            + "(-----BEGIN PRIVATE KEY-----)")
      }
      let encrypted =
        keyText.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")
        || keyText.contains("Proc-Type: 4,ENCRYPTED")
      guard !encrypted || passphrase != nil else {
        return .invalidRequest(
          reason: "the client identity's key file \(key.path) is encrypted, and no passphrase "
            + "was given: ClientIdentity.pem(certificate:key:passphrase:)")
      }
      let chain = ServerTrust.Certificates.pemCertificates(Data(certificateText.utf8)) ?? []
      return Self.chainOrderRefusal(chain, file: certificate)
    }
  }

  /// The text of the PEM file at `url`, or why it cannot be read.
  private static func pemText(_ url: URL) -> Result<String, HTTPError> {
    switch FileBytes.load(url.path, atMost: pemFileLimit, followingLinks: true) {
    case .contents(let bytes):
      return .success(String(decoding: bytes, as: UTF8.self))
    case .missing, .unavailable:
      return .failure(
        .invalidRequest(
          reason: "the client identity's file \(url.path) does not exist or cannot be read"))
    case .foreign:
      return .failure(
        .invalidRequest(
          reason: "the client identity's file \(url.path) is not a regular file of at most "
            + "1 MiB (a directory, a device?)"))
    }
  }
}
