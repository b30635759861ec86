import Foundation

/// What a background `URLSession` task carries in its `taskDescription`, the one place the
/// system keeps for the app across a relaunch: the transfer's identity (no credential) and
/// its response's size limit, so that a relaunched app applies the limit the transfer was
/// started with, and whether it asked for a range.
struct BackgroundTaskDescription: Codable, Equatable, Sendable {
  let transfer: BackgroundTransfer
  /// The response body's size limit in bytes; `nil` for none.
  let maximumBytes: Int?
  /// Whether the request asked for part of the body: a `Range` of the caller's own, or the
  /// system's, resuming from its resume data. `nil` for a task an earlier Courier started.
  let asksForRange: Bool?

  init(transfer: BackgroundTransfer, maximumBytes: Int?, asksForRange: Bool? = false) {
    self.transfer = transfer
    self.maximumBytes = maximumBytes
    self.asksForRange = asksForRange
  }

  /// Why the task's answer `response` cannot be taken though its status is acceptable: a
  /// `206` to a request that asked for no range is not the whole body (every download's
  /// rule, ``Exchange/unaskedPartial(_:askedForRange:)``). `nil` to take it; a task an earlier
  /// Courier started is not judged.
  func refusal(of response: HTTPResponse) -> HTTPError? {
    guard let asksForRange else { return nil }
    return Exchange.unaskedPartial(response.status, askedForRange: asksForRange)
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
      self.init(transfer: transfer, maximumBytes: limitOfOlder(transfer), asksForRange: nil)
    } else {
      return nil
    }
  }
}
