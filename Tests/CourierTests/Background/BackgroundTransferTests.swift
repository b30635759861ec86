import Foundation
import Testing

@testable import Courier

@Suite("A background transfer's identity")
struct BackgroundTransferTests {
  @Test("A file under the home directory is saved relative to it; elsewhere, as it is")
  func homeRelative() throws {
    let home = URL(fileURLWithPath: NSHomeDirectory())
    let inside = BackgroundTransfer(
      kind: .download, url: "https://api.test/t", file: home.appendingPathComponent("Library/t.mp4")
    )
    let saved = try JSONEncoder().encode(inside)
    let json = String(decoding: saved, as: UTF8.self)
    #expect(
      json.contains(#""file":"~\/Library\/t.mp4""#) || json.contains(#""file":"~/Library/t.mp4""#))
    let restored = try JSONDecoder().decode(BackgroundTransfer.self, from: saved)
    #expect(restored.file.path == inside.file.path)
    #expect(restored.id == inside.id && restored.kind == .download && restored.url == inside.url)
    let outside = BackgroundTransfer(
      kind: .upload, url: "https://api.test/u", file: URL(fileURLWithPath: "/var/tmp/u.jpg"))
    let again = try JSONDecoder().decode(
      BackgroundTransfer.self, from: JSONEncoder().encode(outside))
    #expect(again.file.path == "/var/tmp/u.jpg")
  }
}
