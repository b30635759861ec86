import CourierTestSupport
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The jar's rules beyond http-state's cases: public suffixes, Secure and the name
/// prefixes, precedence, limits, URLSession's joined fields.
@Suite("CookieJar")
struct CookieJarTests {
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  func jar() -> CookieJar {
    let now = self.now
    return CookieJar(today: { now })
  }

  func names(_ jar: CookieJar, for url: String) -> [String] {
    jar.cookies(for: URL(string: url)!).map(\.name)
  }

  @Test("a request the jar adds to keeps URLSession's cookie store out, with or without cookies")
  func keepsURLSessionOut() {
    let jar = jar()
    jar.store(["sid=1"], from: URL(string: "https://api.example.com/")!)
    for url in ["https://api.example.com/x", "https://other.example.org/"] {
      var request = URLRequest(url: URL(string: url)!)
      #expect(request.httpShouldHandleCookies)
      jar.addCookies(to: &request)
      #expect(!request.httpShouldHandleCookies, "\(url)")
    }
  }

  @Test("a Domain of one label is refused everywhere; a public suffix of the host is host-only")
  func publicSuffixes() {
    let jar = jar()
    jar.store(
      ["a=1; Domain=com", "b=2; Domain=example.com"], from: URL(string: "http://www.example.com/")!)
    #expect(names(jar, for: "http://api.example.com/") == ["b"])
    jar.store(["c=3; Domain=localhost"], from: URL(string: "http://localhost/")!)
    let local = jar.cookies(for: URL(string: "http://localhost/")!)
    #expect(local.map(\.name) == ["c"] && local.first?.isHostOnly == true)
  }

  #if canImport(FoundationNetworking)
    @Test("Linux: libpsl loads and refuses a multi-label public suffix (co.uk, github.io)")
    func libpsl() {
      #expect(PublicSuffix.usesLibpsl)
      let jar = jar()
      jar.store(["a=1; Domain=co.uk"], from: URL(string: "http://shop.co.uk/")!)
      jar.store(["b=2; Domain=github.io"], from: URL(string: "http://me.github.io/")!)
      jar.store(["c=3; Domain=shop.co.uk"], from: URL(string: "http://www.shop.co.uk/")!)
      #expect(names(jar, for: "http://other.co.uk/").isEmpty)
      #expect(names(jar, for: "http://you.github.io/").isEmpty)
      #expect(names(jar, for: "http://img.shop.co.uk/") == ["c"])
    }
  #endif

  @Test("Secure only over https, to set and to send; an http answer cannot replace it")
  func secure() {
    let jar = jar()
    jar.store(["s=1; Secure", "p=1"], from: URL(string: "http://example.com/")!)
    #expect(names(jar, for: "https://example.com/") == ["p"])
    jar.store(["s=2; Secure"], from: URL(string: "https://example.com/")!)
    #expect(names(jar, for: "http://example.com/") == ["p"])
    #expect(names(jar, for: "https://example.com/") == ["p", "s"])
    jar.store(["s=evil"], from: URL(string: "http://example.com/")!)
    #expect(jar.cookies(for: URL(string: "https://example.com/")!).map(\.value) == ["1", "2"])
  }

  @Test("__Secure- needs Secure over https; __Host- also no Domain and Path=/")
  func prefixes() {
    let jar = jar()
    let https = URL(string: "https://example.com/")!
    jar.store(
      [
        "__Secure-a=1; Secure", "__Secure-b=1", "__Host-c=1; Secure; Path=/",
        "__Host-d=1; Secure; Path=/; Domain=example.com", "__Host-e=1; Secure",
        "__host-f=1",
      ], from: https)
    #expect(jar.cookies.map(\.name).sorted() == ["__Host-c", "__Secure-a"])
    jar.store(["__Secure-g=1; Secure"], from: URL(string: "http://example.com/")!)
    #expect(jar.cookies.count == 2)
  }

  @Test("Max-Age wins over Expires; an expired cookie removes the one it names")
  func expiry() throws {
    let jar = jar()
    let url = URL(string: "http://example.com/")!
    jar.store(["a=1; Expires=Wed, 01 Jan 2003 00:00:00 GMT; Max-Age=60"], from: url)
    let expires = try #require(jar.cookies.first?.expires)
    #expect(expires == now.addingTimeInterval(60))
    jar.store(["a=1; Max-Age=60; Expires=Wed, 01 Jan 2003 00:00:00 GMT"], from: url)
    #expect(jar.cookies.count == 1)
    jar.store(["a=; Max-Age=0"], from: url)
    #expect(jar.cookies.isEmpty)
  }

  @Test("an Expires or Max-Age past 400 days, or overflowing, expires after 400 days")
  func ageLimit() throws {
    let jar = jar()
    let url = URL(string: "http://example.com/")!
    jar.store(
      [
        "a=1; Max-Age=99999999999999999999", "b=1; Expires=Fri, 31 Dec 9999 23:59:59 GMT",
        "c=1; Max-Age=\(Int(CookieJar.maximumAge) + 1)",
      ], from: url)
    let limit = now.addingTimeInterval(400 * 24 * 60 * 60)
    #expect(jar.cookies.map(\.name) == ["a", "b", "c"])
    for cookie in jar.cookies { #expect(cookie.expires == limit, "\(cookie.name)") }
  }

  @Test("an Expires or Max-Age within 400 days is kept as given")
  func withinAgeLimit() throws {
    let jar = jar()
    let url = URL(string: "http://example.com/")!
    let days399 = 399 * 24 * 60 * 60
    jar.store(["a=1; Max-Age=\(days399)"], from: url)
    #expect(jar.cookies.first?.expires == now.addingTimeInterval(TimeInterval(days399)))
  }

  @Test("past 50 cookies for a domain, the oldest goes")
  func perDomainLimit() {
    var moment = now
    let clock = Locked(moment)
    let jar = CookieJar(today: { clock.withLock { $0 } })
    for index in 0...CookieJar.maximumPerDomain {
      moment += 1
      clock.withLock { $0 = moment }
      jar.store(["c\(index)=1"], from: URL(string: "http://example.com/")!)
    }
    #expect(jar.cookies.count == CookieJar.maximumPerDomain)
    #expect(!jar.cookies.contains { $0.name == "c0" })
  }

  @Test("past 3,000 cookies in all, the oldest goes")
  func overallLimit() {
    var moment = now
    let clock = Locked(moment)
    let jar = CookieJar(today: { clock.withLock { $0 } })
    // 50 to each host, each within its own limit, until one more than the jar holds.
    for index in 0...CookieJar.maximumCount {
      moment += 1
      clock.withLock { $0 = moment }
      let host = "h\(index / CookieJar.maximumPerDomain).example"
      jar.store(["c\(index)=1"], from: URL(string: "http://\(host)/")!)
    }
    #expect(jar.cookies.count == CookieJar.maximumCount)
    #expect(!jar.cookies.contains { $0.name == "c0" })
    #expect(jar.cookies.contains { $0.name == "c1" })
    #expect(jar.cookies.contains { $0.name == "c\(CookieJar.maximumCount)" })
  }

  @Test("fields URLSession joined with \", \" part again; a comma in an Expires date stays")
  func partedFields() {
    #expect(
      SetCookie.parted("a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT, b=2; Path=/, c=3")
        == ["a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT", "b=2; Path=/", "c=3"])
    #expect(SetCookie.parted("a=1") == ["a=1"])
    #expect(SetCookie.parted("a=x, y") == ["a=x, y"])
  }

  @Test("a field with a control character, an empty name or no \"=\" is ignored")
  func refused() {
    let jar = jar()
    jar.store(["a=1\u{1}x", "=2", "b", "c=3"], from: URL(string: "http://example.com/")!)
    #expect(jar.cookies.map(\.name) == ["c"])
  }

  @Test("a jar's file is never readable by others, not even while it is being written")
  func neverWorldReadable() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-jar-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let jar = try CookieJar(persistingTo: directory.appendingPathComponent("cookies.json"))
    // A watcher lists the directory as fast as it can while the jar saves, and notes any file
    // it finds with a permission for the group or others. (A file created readable by all and
    // narrowed afterwards is open for microseconds: many saves give the watcher its chance.)
    let seen = Locked<Set<String>>([])
    let stop = Locked(false)
    let watcher = Thread {
      while !stop.withLock({ $0 }) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
          var info = stat()
          guard stat(directory.appendingPathComponent(name).path, &info) == 0 else { continue }
          if info.st_mode & 0o077 != 0 { _ = seen.withLock { $0.insert(name) } }
        }
      }
    }
    watcher.start()
    for index in 0..<150 {
      jar.store(["c\(index % 20)=\(index); Max-Age=3600"], from: URL(string: "https://a.test/")!)
    }
    stop.withLock { $0 = true }
    while !watcher.isFinished { usleep(1000) }
    #expect(seen.withLock { $0 }.isEmpty, "\(seen.withLock { $0 })")
  }

  @Test("a jar stored into from many threads at once leaves its file holding every cookie")
  func concurrentSaves() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-jar-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("cookies.json")
    // Each round, six threads store five cookies each into one jar (as clients sharing it
    // do); what the file says afterwards must be what the jar holds. (The last save to reach
    // the disk once could be one that read the jar before another thread's change.)
    for round in 0..<20 {
      let jar = try CookieJar(persistingTo: file)
      jar.removeAll()
      await onOwnThread {
        let done = DispatchGroup()
        for worker in 0..<6 {
          done.enter()
          Thread {
            for index in 0..<5 {
              jar.store(
                ["c\(worker)-\(index)=\(round); Max-Age=3600"],
                from: URL(string: "https://a.test/")!)
            }
            done.leave()
          }.start()
        }
        done.wait()
      }
      #expect(jar.cookies.count == 30)
      let reread = try CookieJar(persistingTo: file)
      let (saved, held) = (Set(reread.cookies.map(\.name)), Set(jar.cookies.map(\.name)))
      #expect(saved == held, "round \(round): \(held.symmetricDifference(saved).sorted())")
      if saved != held { break }
    }
  }

  @Test("a jar whose file cannot be written is refused at once, not kept in memory only")
  func unwritableFile() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-jar-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    // A directory not made yet (Application Support on a fresh Mac), and a "directory" that
    // is a file: every save would fail, and the cookies be gone at the next launch.
    let notADirectory = directory.appendingPathComponent("plain")
    try Data().write(to: notADirectory)
    for file in [
      directory.appendingPathComponent("missing/cookies.json"),
      notADirectory.appendingPathComponent("cookies.json"),
    ] {
      let error = #expect(throws: HTTPError.self) { try CookieJar(persistingTo: file) }
      #expect(error?.description.contains("cannot be written") == true, "\(file.path)")
    }
    // In a directory that exists, the file is made at once, owner-only, and holds the jar.
    let file = directory.appendingPathComponent("cookies.json")
    let jar = try CookieJar(persistingTo: file)
    let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions]
    #expect((permissions as? NSNumber)?.intValue == 0o600)
    jar.store(["a=1; Max-Age=3600"], from: URL(string: "https://a.test/")!)
    #expect(try CookieJar(persistingTo: file).cookies.map(\.name) == ["a"])
  }

  @Test("cookie values are credentials: no description or dump of a cookie or jar shows them")
  func valuesNotPrinted() throws {
    let jar = jar()
    jar.store(["s=cookie-SECRET; Max-Age=100; Secure"], from: URL(string: "https://a.test/x/y")!)
    var configuration = HTTPClient.Configuration()
    configuration.cookies = jar
    let cookie = try #require(jar.cookies.first)
    var dumped = ("", "", "")
    dump(cookie, to: &dumped.0)
    dump(jar, to: &dumped.1)
    dump(configuration, to: &dumped.2)
    for text in [
      "\(cookie)", String(reflecting: cookie), "\(jar.cookies)", "\(jar)", dumped.0, dumped.1,
      dumped.2,
    ] {
      #expect(!text.contains("cookie-SECRET"), "\(text)")
    }
    // What the cookie is, and what it is for, is shown; its value is there for code to read.
    #expect(
      "\(cookie)".hasPrefix(#"Cookie(name: "s", value: <redacted>, domain: "a.test", path: "/x""#))
    #expect(dumped.1.contains("a.test"))
    #expect(cookie.value == "cookie-SECRET")
    #expect(jar.header(for: URL(string: "https://a.test/x/z")!) == "s=cookie-SECRET")
  }
}
