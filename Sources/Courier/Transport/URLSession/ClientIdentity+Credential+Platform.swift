import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#else
  import Security
#endif

// How a ClientIdentity becomes a URLCredential: Apple platforms import a PKCS#12 bundle with
// the Security framework; Linux has no client-certificate challenge (FoundationNetworking
// sends none), so a URLSessionTransport given an identity refuses every request there
// (URLSessionTransport+ConnectionSettings.swift) and this is never reached.

extension ClientIdentity {
  #if canImport(FoundationNetworking)
    /// Linux: none; FoundationNetworking has no client-certificate challenge.
    func urlCredential() -> Result<URLCredential, HTTPError> {
      .failure(Self.rejection("FoundationNetworking has no client-certificate challenge"))
    }
  #else
    /// Apple platforms: the PKCS#12 bundle through `SecPKCS12Import` (its passphrase as
    /// `kSecImportExportPassphrase`), its first identity with the rest of its chain as
    /// `URLCredential(identity:certificates:persistence:)`, `.forSession` as Apple's page of
    /// that initializer advises. PEM files cannot be paired into a `SecIdentity` on iOS with
    /// any public API, so a transport given them refuses every request before this.
    func urlCredential() -> Result<URLCredential, HTTPError> {
      guard case .pkcs12(let data) = source else {
        return .failure(Self.rejection("PEM files cannot be presented over URLSession"))
      }
      let options = [kSecImportExportPassphrase as String: passphrase ?? ""]
      var items: CFArray?
      let status = SecPKCS12Import(data as CFData, options as CFDictionary, &items)
      guard status == errSecSuccess else {
        return .failure(Self.rejection(Self.importFailure(status: status)))
      }
      let imported = (items as? [[String: Any]]) ?? []
      guard let item = imported.first(where: { $0[kSecImportItemIdentity as String] != nil }),
        let value = item[kSecImportItemIdentity as String]
      else {
        return .failure(
          Self.rejection("the PKCS#12 bundle holds no identity (certificate and key)"))
      }
      let identity = value as! SecIdentity  // kSecImportItemIdentity's value is a SecIdentity
      // The chain starts with the identity's own certificate; the credential takes the
      // intermediates after it (Apple's documentation of `certArray`).
      let chain = (item[kSecImportItemCertChain as String] as? [SecCertificate]) ?? []
      return .success(
        URLCredential(
          identity: identity, certificates: chain.count > 1 ? Array(chain.dropFirst()) : nil,
          persistence: .forSession))
    }
  #endif
}
