import Foundation

/// What a background `URLSession` task carries in its `taskDescription`, the one place the
/// system keeps for the app across a relaunch: the transfer's identity (no credential) and
/// its response's size limit, so that a relaunched app applies the limit the transfer was
/// started with, and whether the caller asked for a range.
struct BackgroundTaskDescription: Codable, Equatable, Sendable {
  let transfer: BackgroundTransfer
  /// The response body's size limit in bytes; `nil` for none.
  let maximumBytes: Int?
  /// Whether the caller's own request asked for part of the body (its `Range`); a task
  /// resumed from the system's resume data did not, though the system asks for the rest.
  /// `nil` for a task an earlier Courier started.
  let callerRange: Bool?

  init(transfer: BackgroundTransfer, maximumBytes: Int?, callerRange: Bool? = false) {
    self.transfer = transfer
    self.maximumBytes = maximumBytes
    self.callerRange = callerRange
  }

  /// Why the task's answer `response`, of which `received` bytes came (the file the system
  /// wrote, or the body), cannot be taken though its status is acceptable, or `nil` to take
  /// it. A `206` to a request without a `Range` of the caller's is taken only when it holds
  /// the whole body, as the system's stitching of a resumed download does: its
  /// `Content-Range` names the total, and that many bytes came; or, of an unknown total
  /// (`bytes a-b/*`, RFC 9110 §14.4), it continues after kept bytes (`a` is not 0) and the
  /// file ends where it ends (`b + 1` bytes came: the `a` the system kept, then the part).
  /// That is consistent with a whole body, not proof of one: with no total, a server that
  /// sent a shorter part than the rest of the body cannot be told from one that sent it all.
  /// Otherwise it is a part (an unasked `206`, every download's rule:
  /// ``Exchange/unaskedPartial(_:askedForRange:)``; or a resumed one whose earlier bytes the
  /// system lost), and the file is not moved to its destination. A task an earlier Courier
  /// started is not judged.
  func refusal(of response: HTTPResponse, received: Int) -> HTTPError? {
    guard let callerRange, !callerRange, response.status == 206 else { return nil }
    if let range = ContentRange(response.headers["Content-Range"]) {
      if let total = range.total, total == Int64(received) { return nil }
      if range.total == nil, let first = range.first, first > 0,
        range.last.map({ $0 + 1 }) == Int64(received)
      {
        return nil
      }
    }
    return Exchange.unaskedPartial(response.status, askedForRange: false)
  }

  /// The description as the task keeps it: JSON.
  var text: String? {
    (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) }
  }

  /// Reads a task's description. One written by an earlier Courier (the transfer's JSON
  /// alone) gets the limit `limitOfOlder` gives its transfer.
  init?(text: String?, limitOfOlder: (BackgroundTransfer) -> Int?) {
    guard let text else { return nil }
    let data = Data(text.utf8)
    if let read = try? JSONDecoder().decode(Self.self, from: data) {
      self = read
    } else if let transfer = try? JSONDecoder().decode(BackgroundTransfer.self, from: data) {
      self.init(transfer: transfer, maximumBytes: limitOfOlder(transfer), callerRange: nil)
    } else {
      return nil
    }
  }
}
