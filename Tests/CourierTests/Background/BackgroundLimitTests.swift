import Foundation
import Testing

@testable import Courier

/// The size limit of a background transfer: one rule for the in-process session (Linux) and
/// the system's (Apple platforms), kept in the system task's description across a relaunch.
@Suite("Background transfers: size limits")
struct BackgroundLimitTests {
  let megabytes16 = 16 * 1024 * 1024

  @Test("A download has no limit unless its options give one, whatever the client's limit")
  func downloads() {
    #expect(
      TransferOptions.responseLimit(
        of: .download, options: nil, maximumResponseBytes: megabytes16) == nil)
    #expect(
      TransferOptions.responseLimit(
        of: .download, options: TransferOptions(), maximumResponseBytes: megabytes16) == nil)
    #expect(
      TransferOptions.responseLimit(
        of: .download, options: TransferOptions(maximumBytes: 5), maximumResponseBytes: 9) == 5)
  }

  @Test("An upload's answer has the client's limit unless options are given, as HTTPClient's")
  func uploads() {
    #expect(
      TransferOptions.responseLimit(
        of: .upload, options: nil, maximumResponseBytes: megabytes16) == megabytes16)
    #expect(
      TransferOptions.responseLimit(
        of: .upload, options: TransferOptions(maximumBytes: 5), maximumResponseBytes: 9) == 5)
    #expect(
      TransferOptions.upload(nil, maximumResponseBytes: 7).maximumBytes == 7)
  }

  @Test("A system task's description keeps the transfer and its limit, also no limit")
  func descriptionKeepsTheLimit() throws {
    let transfer = BackgroundTransfer(
      kind: .download, url: "https://api.test/a", file: URL(fileURLWithPath: "/tmp/a"))
    for limit in [nil, 0, 123_456_789] as [Int?] {
      let text = try #require(
        BackgroundTaskDescription(transfer: transfer, maximumBytes: limit).text)
      // A relaunched app's client may have any limit: the stored one wins.
      let read = try #require(BackgroundTaskDescription(text: text) { _ in 42 })
      #expect(read.transfer == transfer)
      #expect(read.maximumBytes == limit)
    }
  }

  @Test("A task an earlier Courier started (its transfer alone) gets the rule's limit")
  func olderDescription() throws {
    let transfer = BackgroundTransfer(
      kind: .upload, url: "https://api.test/u", file: URL(fileURLWithPath: "/tmp/u"))
    let text = String(decoding: try JSONEncoder().encode(transfer), as: UTF8.self)
    let read = try #require(BackgroundTaskDescription(text: text) { _ in 42 })
    #expect(read.transfer == transfer)
    #expect(read.maximumBytes == 42)
    #expect(BackgroundTaskDescription(text: "not json") { _ in 42 } == nil)
    #expect(BackgroundTaskDescription(text: nil) { _ in 42 } == nil)
  }

  @Test("A system download without a Range of the caller's refuses a 206 that is a part")
  func unaskedPartial() throws {
    let transfer = BackgroundTransfer(
      kind: .download, url: "https://api.test/a", file: URL(fileURLWithPath: "/tmp/a"))
    let text = try #require(BackgroundTaskDescription(transfer: transfer, maximumBytes: nil).text)
    let read = try #require(BackgroundTaskDescription(text: text) { _ in nil })
    let parts = [
      (HTTPResponse(status: 206), 100),  // no Content-Range at all
      (partial("bytes 0-99/1000"), 100),  // the first part of it
      (partial("bytes 500-999/1000"), 500),  // resumed, the kept half lost by the system
      (partial("bytes 0-99/*"), 100),  // no total to tell
      (partial("bytes 500-999/*"), 500),  // unknown total, the kept half lost by the system
      (partial("bytes 500-899/*"), 1000),  // unknown total, not where the file ends
    ]
    for (response, received) in parts {
      let refusal = read.refusal(of: response, received: received)
      guard case .transport(let error) = refusal else {
        Issue.record("a part was taken: \(response.headers), \(received) bytes")
        continue
      }
      #expect(error.code == .badServerResponse)
    }
  }

  @Test("A 206 holding the whole body is taken (a resumed download the system stitched)")
  func wholePartial() throws {
    let transfer = BackgroundTransfer(
      kind: .download, url: "https://api.test/a", file: URL(fileURLWithPath: "/tmp/a"))
    let resumed = BackgroundTaskDescription(transfer: transfer, maximumBytes: nil)
    let text = try #require(resumed.text)
    let read = try #require(BackgroundTaskDescription(text: text) { _ in nil })
    #expect(read.refusal(of: partial("bytes 500-999/1000"), received: 1000) == nil)
    #expect(read.refusal(of: partial("bytes 0-999/1000"), received: 1000) == nil)
    // Of an unknown total (RFC 9110 §14.4): the rest after the kept 500 bytes, the file whole.
    #expect(read.refusal(of: partial("bytes 500-999/*"), received: 1000) == nil)
    #expect(read.refusal(of: HTTPResponse(status: 200), received: 10) == nil)
  }

  @Test("A system download with a Range of the caller's takes its 206 as it is")
  func askedPartial() throws {
    let transfer = BackgroundTransfer(
      kind: .download, url: "https://api.test/a", file: URL(fileURLWithPath: "/tmp/a"))
    let asked = BackgroundTaskDescription(transfer: transfer, maximumBytes: nil, callerRange: true)
    let text = try #require(asked.text)
    let read = try #require(BackgroundTaskDescription(text: text) { _ in nil })
    #expect(read.refusal(of: partial("bytes 0-99/1000"), received: 100) == nil)
    #expect(read.refusal(of: HTTPResponse(status: 206), received: 100) == nil)
    // A task an earlier Courier started (no word on ranges) is not judged.
    let older = String(decoding: try JSONEncoder().encode(transfer), as: UTF8.self)
    let readOlder = try #require(BackgroundTaskDescription(text: older) { _ in nil })
    #expect(readOlder.refusal(of: partial("bytes 0-99/1000"), received: 100) == nil)
  }

  private func partial(_ contentRange: String) -> HTTPResponse {
    HTTPResponse(status: 206, headers: ["Content-Range": contentRange])
  }
}
