import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("The environment's proxy credentials are secrets a transport error loses")
struct ProxyCredentialsTests {
  @Test("the user info before a proxy's last @, encoded and decoded, whole and the password")
  func credentials() {
    let secrets = Redaction.proxyCredentials(in: [
      "HTTPS_PROXY": "http://svc:p%40ss-word@proxy:3128", "all_proxy": "socks5h://u:p@ss@h:1",
      "http_proxy": "svc:pw-plain@proxy:3128",
    ])
    for secret in [
      "svc:p%40ss-word", "svc:p@ss-word", "p%40ss-word", "p@ss-word", "u:p@ss", "p@ss",
      "svc:pw-plain", "pw-plain",
    ] {
      #expect(secrets.contains(secret), "\(secret)")
    }
    #expect(secrets == secrets.sorted { $0.count > $1.count })
  }

  @Test("no_proxy, other variables and proxies without user info give none")
  func none() {
    #expect(
      Redaction.proxyCredentials(in: [
        "no_proxy": "a@b.example", "HOME": "me@host", "http_proxy": "http://proxy:3128",
        "https_proxy": "",
      ]).isEmpty)
  }

  @Test("an error's texts and those of the error under it lose them; the rest stays")
  func scrubbed() {
    let quoted = "Unsupported proxy syntax in 'http://svc:pw-1@h:1'"
    let url = URL(string: "http://api.example/a")!
    let info = Redaction.scrub(
      userInfo: [
        HTTPError.reasonKey: quoted, NSURLErrorFailingURLErrorKey: url,
        NSUnderlyingErrorKey: NSError(
          domain: NSURLErrorDomain, code: -1, userInfo: [NSLocalizedDescriptionKey: quoted]),
      ], secrets: ["svc:pw-1"])
    let redacted = "Unsupported proxy syntax in 'http://<redacted>@h:1'"
    #expect(info[HTTPError.reasonKey] as? String == redacted)
    let under = info[NSUnderlyingErrorKey] as? NSError
    #expect(under?.code == -1)
    #expect(under?.userInfo[NSLocalizedDescriptionKey] as? String == redacted)
    #expect(info[NSURLErrorFailingURLErrorKey] as? URL == url)
    // An error under it that holds no secret is the same error, not a copy.
    let plain = NSError(domain: "Other", code: 7, userInfo: [NSLocalizedDescriptionKey: "fine"])
    let kept = Redaction.scrub(userInfo: [NSUnderlyingErrorKey: plain], secrets: ["svc:pw-1"])
    #expect((kept[NSUnderlyingErrorKey] as? NSError) === plain)
  }
}
