import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A ``ClientIdentity`` and a ``ProxyConfiguration`` on ``URLSessionTransport``: the proxy
/// dictionary URLSession is given, and what each platform refuses. Pure rules, so both
/// platforms' answers are tested here.
@Suite("URLSessionTransport's client identity and proxy")
struct URLSessionConnectionSettingsTests {
  typealias Key = ProxyConfiguration.DictionaryKey

  @Test("an HTTP proxy carries http and https; its password is in no key")
  func httpProxy() {
    let proxy = ProxyConfiguration.http(
      host: "proxy.internal", port: 3128, username: "svc", password: "s3cret")
    let dictionary = proxy.connectionProxyDictionary
    #expect(dictionary["HTTPEnable"] as? Int == 1)
    #expect(dictionary["HTTPProxy"] as? String == "proxy.internal")
    #expect(dictionary["HTTPPort"] as? Int == 3128)
    #expect(dictionary["HTTPSEnable"] as? Int == 1)
    #expect(dictionary["HTTPSProxy"] as? String == "proxy.internal")
    #expect(dictionary["HTTPSPort"] as? Int == 3128)
    #expect(
      Set(dictionary.keys) == [
        "HTTPEnable", "HTTPProxy", "HTTPPort", "HTTPSEnable", "HTTPSProxy", "HTTPSPort",
      ])
    #expect(!dictionary.values.contains { "\($0)".contains("s3cret") })
  }

  @Test("a SOCKS proxy is SOCKSEnable, SOCKSProxy and SOCKSPort")
  func socksProxy() {
    let dictionary = ProxyConfiguration.socks5(host: "10.0.0.9", port: 1080)
      .connectionProxyDictionary
    #expect(Set(dictionary.keys) == ["SOCKSEnable", "SOCKSProxy", "SOCKSPort"])
    #expect(dictionary["SOCKSEnable"] as? Int == 1)
    #expect(dictionary["SOCKSProxy"] as? String == "10.0.0.9")
    #expect(dictionary["SOCKSPort"] as? Int == 1080)
  }

  @Test(
    "excluded hosts become exception patterns: a name and its subdomains, addresses as they are (IPv6 also in brackets)"
  )
  func exceptions() {
    let proxy = ProxyConfiguration.http(
      host: "proxy.internal", port: 3128,
      excluding: ["localhost", "example.com", ".internal", "127.0.0.1", "::1", "*"])
    #expect(
      proxy.connectionProxyDictionary["ExceptionsList"] as? [String] == [
        "localhost", "*.localhost", "example.com", "*.example.com", "*.internal", "127.0.0.1",
        "::1", "[::1]", "*",
      ])
    #expect(
      ProxyConfiguration.http(host: "p", port: 1).connectionProxyDictionary["ExceptionsList"]
        == nil)
  }

  @Test("a proxy host with a URL, user info or port written into it is refused, never shown")
  func malformedProxyHost() {
    let malformed = [
      "svc:hunter2@proxy.internal", "http://proxy.internal", "proxy.internal:3128", "",
      "[::1]:3128", "[::1", "::1]", "[proxy.internal]", "[10.0.0.1]", "proxy[1]",
    ]
    for host in malformed {
      let proxy = ProxyConfiguration.http(host: host, port: 3128)
      let refusal = URLSessionTransport.ConnectionSettings(proxy: proxy).refusal(on: .apple)
      let reason = refusal?.invalidRequestReason
      #expect(reason?.contains("not a host name or address") == true, "\(host)")
      #expect(!"\(String(describing: refusal))".contains("hunter2"))
      #expect(!"\(proxy)".contains("hunter2"), "\(proxy)")
    }
    for host in ["proxy.internal", "10.0.0.9", "::1", "[::1]", "fe80::1%en0"] {
      #expect(ProxyConfiguration.http(host: host, port: 3128).refusal == nil, "\(host)")
    }
    #expect(ProxyConfiguration.http(host: "::1", port: 1).hostForURL == "[::1]")
    #expect(ProxyConfiguration.http(host: "[::1]", port: 1).hostForURL == "[::1]")
    #expect(ProxyConfiguration.socks5(host: "p", port: 0).refusal?.invalidRequestReason != nil)
    #expect(ProxyConfiguration.socks5(host: "p", port: 65_536).refusal?.invalidRequestReason != nil)
  }

  @Test("a wildcard or spaced exclusion is a pattern as it is meant, not a name no host has")
  func oddExceptions() {
    let proxy = ProxyConfiguration.http(
      host: "proxy.internal", port: 3128,
      excluding: ["*.corp.example", " .internal", "lan\r\n", " ", ""])
    #expect(
      proxy.exceptionPatterns == ["*.corp.example", "*.internal", "lan", "*.lan"])
    // An IPv6 address, written either way, in both forms; an IPv4 one as it is.
    let addresses = ProxyConfiguration.http(
      host: "proxy.internal", port: 3128, excluding: ["[::1]", "fe80::2", "10.0.0.1"])
    #expect(addresses.exceptionPatterns == ["::1", "[::1]", "fe80::2", "[fe80::2]", "10.0.0.1"])
  }

  @Test("the proxy's credential goes to its own host and port, only before a failure")
  func proxyCredential() {
    let proxy = ProxyConfiguration.socks5(
      host: "proxy.internal", port: 1080, username: "svc", password: "s3cret")
    let given = proxy.credential(
      forProxyHost: "PROXY.internal", port: 1080, previousFailureCount: 0)
    #expect(given?.user == "svc" && given?.password == "s3cret")
    #expect(
      proxy.credential(forProxyHost: "proxy.internal", port: 1080, previousFailureCount: 1) == nil)
    #expect(proxy.credential(forProxyHost: "other", port: 1080, previousFailureCount: 0) == nil)
    #expect(
      proxy.credential(forProxyHost: "proxy.internal", port: 80, previousFailureCount: 0) == nil)
    let noPassword = ProxyConfiguration.http(host: "p", port: 1, username: "svc")
    #expect(
      noPassword.credential(forProxyHost: "p", port: 1, previousFailureCount: 0)?.password == "")
    #expect(
      ProxyConfiguration.http(host: "p", port: 1)
        .credential(forProxyHost: "p", port: 1, previousFailureCount: 0) == nil)
    // An IPv6 proxy: the challenge's host may be bracketed or bare, whichever the user wrote.
    for (written, challenged) in [("[::1]", "::1"), ("::1", "[::1]"), ("[FE80::1]", "fe80::1")] {
      let ipv6 = ProxyConfiguration.http(host: written, port: 8, username: "svc", password: "pw")
      #expect(
        ipv6.credential(forProxyHost: challenged, port: 8, previousFailureCount: 0)?.user
          == "svc", "\(written) against \(challenged)")
    }
    #expect(
      ProxyConfiguration.http(host: "[::1]", port: 8, username: "svc")
        .credential(forProxyHost: "::2", port: 8, previousFailureCount: 0) == nil)
  }

  @Test("Linux refuses an identity or a proxy, naming CurlTransport; Apple refuses only PEM")
  func refusals() {
    let pem = ClientIdentity.pem(
      certificate: URL(fileURLWithPath: "/etc/c.pem"), key: URL(fileURLWithPath: "/etc/c.key"),
      passphrase: "s3cret")
    let pkcs12 = ClientIdentity.pkcs12(Data([1, 2, 3]), passphrase: "s3cret")
    let proxy = ProxyConfiguration.http(host: "p", port: 1, username: "u", password: "s3cret")
    func reason(
      _ identity: ClientIdentity?, _ proxy: ProxyConfiguration?,
      _ platform: ChallengeAnswer.Platform
    ) -> String? {
      guard
        let refusal = URLSessionTransport.ConnectionSettings(
          clientIdentity: identity, proxy: proxy
        ).refusal(on: platform)
      else { return nil }
      guard case .invalidRequest(let reason) = refusal else { return "not invalidRequest" }
      #expect(!reason.contains("s3cret"))
      return reason
    }
    #expect(reason(nil, nil, .foundationNetworking) == nil)
    #expect(reason(pkcs12, nil, .foundationNetworking)?.contains("use CurlTransport") == true)
    #expect(reason(pem, nil, .foundationNetworking)?.contains("client identity") == true)
    #expect(reason(nil, proxy, .foundationNetworking)?.contains("use CurlTransport") == true)
    #expect(reason(nil, proxy, .foundationNetworking)?.contains("proxy") == true)

    #expect(reason(nil, nil, .apple) == nil)
    #expect(reason(pkcs12, proxy, .apple) == nil)
    #expect(reason(pem, proxy, .apple)?.contains("PEM") == true)
    #expect(reason(pem, nil, .apple)?.contains("pkcs12") == true)
  }

  @Test("Linux refuses a trust or a minimum TLS version; Apple only a trust that cannot be used")
  func trustRefusals() {
    typealias Settings = URLSessionTransport.ConnectionSettings
    let pin = Data(repeating: 1, count: 32).base64EncodedString()
    let pinned = ServerTrust(pinnedPublicKeys: [pin])
    func reason(_ settings: Settings, _ platform: ChallengeAnswer.Platform) -> String? {
      guard let refusal = settings.refusal(on: platform) else { return nil }
      guard case .invalidRequest(let reason) = refusal else { return "not invalidRequest" }
      return reason
    }
    #expect(reason(Settings(trust: pinned), .foundationNetworking)?.contains("ServerTrust") == true)
    #expect(
      reason(Settings(minimumTLSVersion: .tls13), .foundationNetworking)?
        .contains("Configuration.minimumTLSVersion") == true)
    // A trust that asks for nothing is the default everywhere.
    #expect(reason(Settings(trust: ServerTrust()), .foundationNetworking) == nil)
    #expect(Settings(trust: ServerTrust(trustsSystemRoots: true)).resolvedTrust == nil)

    #expect(reason(Settings(trust: pinned, minimumTLSVersion: .tls13), .apple) == nil)
    #expect(
      reason(Settings(trust: ServerTrust(pinnedPublicKeys: ["short"])), .apple)?.contains("short")
        == true)
    let missing = ServerTrust(certificateAuthorities: [
      .file(URL(fileURLWithPath: "/nonexistent/ca.der"))
    ])
    #expect(reason(Settings(trust: missing), .apple)?.contains("/nonexistent/ca.der") == true)
  }

  @Test("the minimum TLS version, like the proxy, goes into a copy of the configuration")
  func minimumVersionCopy() {
    let configuration = URLSessionConfiguration.ephemeral
    let settings = URLSessionTransport.ConnectionSettings(minimumTLSVersion: .tls13)
    #expect(settings.applied(to: configuration) !== configuration)
  }

  @Test("an import failure says why as a rejected client certificate, never the passphrase")
  func importFailures() {
    #expect(ClientIdentity.importFailure(status: -25293).contains("wrong passphrase"))
    #expect(ClientIdentity.importFailure(status: -26275).contains("not PKCS#12"))
    #expect(ClientIdentity.importFailure(status: -1).contains("-1"))
    let error = ClientIdentity.rejection(ClientIdentity.importFailure(status: -25293))
    guard case .transport(let urlError) = error else {
      Issue.record("expected a transport error, got \(error)")
      return
    }
    #expect(urlError.code == .clientCertificateRejected)
    #expect(urlError.localizedDescription.contains("wrong passphrase"))
  }

  @Test("the proxy goes into a copy of the session configuration; the caller's is left alone")
  func configurationCopy() {
    let configuration = URLSessionConfiguration.ephemeral
    let proxy = ProxyConfiguration.socks5(host: "proxy.internal", port: 1080)
    let configured = URLSessionTransport.ConnectionSettings(proxy: proxy).applied(to: configuration)
    #expect(configured !== configuration)
    #expect(configured.connectionProxyDictionary?["SOCKSProxy"] as? String == "proxy.internal")
    #expect(configuration.connectionProxyDictionary == nil)
    #expect(URLSessionTransport.ConnectionSettings().applied(to: configuration) === configuration)
  }

  @Test("ChoosingATransport's URLSessionTransport example: the proxy reaches the session on Apple")
  func articleExample() throws {
    let secret = "passphrase"
    let proxySecret = "proxy-passphrase"
    let bundle = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-example-\(UUID().uuidString).p12")
    try Data(count: 4).write(to: bundle)
    defer { try? FileManager.default.removeItem(at: bundle) }
    let transport = URLSessionTransport(
      clientIdentity: .pkcs12(try Data(contentsOf: bundle), passphrase: secret),
      proxy: .http(host: "proxy.internal", port: 3128, username: "svc", password: proxySecret))
    switch ChallengeAnswer.platform {
    case .apple:
      #expect(transport.refusal == nil)
      let dictionary = transport.session.configuration.connectionProxyDictionary
      #expect(dictionary?["HTTPSProxy"] as? String == "proxy.internal")
    case .foundationNetworking:
      #expect(transport.refusal != nil)
    }
    #expect(transport.delegate.proxy?.port == 3128 && transport.delegate.clientCredential != nil)
  }
}
