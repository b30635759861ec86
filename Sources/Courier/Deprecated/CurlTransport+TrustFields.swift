// CurlTransport's trust settings before ServerTrust, which URLSessionTransport takes too: kept
// as deprecated forwarders until 1.1 (CHANGELOG lists them). Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation

  extension CurlTransport.Configuration {
    /// A PEM file of the certificate authorities to trust instead of the system's roots.
    @available(
      *, deprecated, message: "use trust: ServerTrust(certificateAuthorities: [.file(url)])"
    )
    public var certificateAuthorities: URL? {
      get {
        for certificates in trust?.certificateAuthorities ?? [] {
          if case .file(let url) = certificates.source { return url }
        }
        return nil
      }
      set {
        var trust = self.trust ?? ServerTrust()
        trust.certificateAuthorities = newValue.map { [.file($0)] } ?? []
        self.trust = trust
      }
    }

    /// SHA-256 hashes of the public keys a server may present, base64.
    @available(*, deprecated, message: "use trust: ServerTrust(pinnedPublicKeys:)")
    public var pinnedPublicKeys: [String] {
      get { trust?.pinnedPublicKeys ?? [] }
      set {
        var trust = self.trust ?? ServerTrust()
        trust.pinnedPublicKeys = newValue
        self.trust = trust
      }
    }
  }

  extension CurlTransport {
    /// A transport trusting the PEM file `certificateAuthorities` instead of the system's
    /// roots, and servers whose public key is one of `pinnedPublicKeys`.
    @available(*, deprecated, renamed: "init(maximumConnectionsPerHost:trust:)")
    public convenience init(
      maximumConnectionsPerHost: Int = 32, certificateAuthorities: URL?,
      pinnedPublicKeys: [String] = []
    ) {
      self.init(
        maximumConnectionsPerHost: maximumConnectionsPerHost,
        trust: ServerTrust(
          certificateAuthorities: certificateAuthorities.map { [.file($0)] } ?? [],
          pinnedPublicKeys: pinnedPublicKeys))
    }
  }
#endif
