import Courier
import Foundation
import Testing

@Suite("Parsing RFC 8288 Link headers")
struct HTTPLinkTests {
  let base = URL(string: "https://api.github.com/orgs/swiftlang/repos?page=1")!

  @Test("several links, each with its relation")
  func several() {
    let header =
      #"<https://api.github.com/orgs/swiftlang/repos?page=2>; rel="next", "#
      + #"<https://api.github.com/orgs/swiftlang/repos?page=9>; rel="last""#
    let links = HTTPLink.parse(header, relativeTo: base)
    #expect(
      links.map(\.url.absoluteString) == [
        "https://api.github.com/orgs/swiftlang/repos?page=2",
        "https://api.github.com/orgs/swiftlang/repos?page=9",
      ])
    #expect(links.map(\.relations) == [["next"], ["last"]])
  }

  @Test("relative targets resolve against the response URL")
  func relative() {
    let links = HTTPLink.parse(
      "</orgs/swiftlang/repos?page=3>; rel=next, <?page=4>; rel=last", relativeTo: base)
    #expect(
      links.map(\.url.absoluteString) == [
        "https://api.github.com/orgs/swiftlang/repos?page=3",
        "https://api.github.com/orgs/swiftlang/repos?page=4",
      ])
  }

  @Test("quoted parameters may hold commas, semicolons and escaped quotes")
  func quoted() {
    let header =
      #"<https://x.example/a>; title="a, b; \"c\""; rel="next", <https://x.example/b>; rel=prev"#
    let links = HTTPLink.parse(header)
    #expect(links.count == 2)
    #expect(links[0].parameters["title"] == #"a, b; "c""#)
    #expect(links[0].relations == ["next"])
    #expect(links[1].relations == ["prev"])
  }

  @Test("several relation types in one rel, matched case-insensitively; the first rel counts")
  func relationTypes() {
    let links = HTTPLink.parse(#"<https://x.example/a>; REL="Next Last"; rel=prev"#)
    #expect(links.first?.relations == ["next", "last"])
    let response = HTTPResponse(
      status: 200, headers: ["Link": #"<https://x.example/a>; rel="NEXT""#])
    #expect(response.link(rel: "next")?.absoluteString == "https://x.example/a")
    #expect(response.link(rel: "prev") == nil)
  }

  @Test("links from repeated Link headers are all read")
  func repeatedHeaders() {
    var headers = HTTPHeaders()
    headers.add("Link", "<https://x.example/1>; rel=first")
    headers.add("link", "<https://x.example/2>; rel=next")
    let response = HTTPResponse(status: 200, headers: headers)
    #expect(response.links.count == 2)
    #expect(response.link(rel: "next")?.absoluteString == "https://x.example/2")
  }

  @Test(
    "malformed link-values are skipped and the well-formed ones after them kept",
    arguments: [
      ("https://x.example/2; rel=next", true),  // no angle brackets
      ("<https://x.example/2> rel=next", true),  // missing ;
      ("<https://x.example/2>; =next", true),  // missing parameter name
      ("", true),
      (",,,", true),
      // These swallow the rest of the header, as the grammar says:
      ("<https://x.example/2; rel=next", false),  // unterminated target
      (#"<https://x.example/2>; rel="next"#, false),  // unterminated quote
    ])
  func malformed(header: String, keepsFollowing: Bool) {
    #expect(HTTPResponse(status: 200, headers: ["Link": header]).link(rel: "next") == nil)
    let mixed = HTTPLink.parse(header + ", <https://x.example/ok>; rel=last")
    #expect(mixed.map(\.url.absoluteString) == (keepsFollowing ? ["https://x.example/ok"] : []))
  }
}
