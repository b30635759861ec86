import Foundation

/// What a background `URLSession` task carries in its `taskDescription`, the one place the
/// system keeps for the app across a relaunch: the transfer's identity (no credential) and
/// its response's size limit, so that a relaunched app applies the limit the transfer was
/// started with.
struct BackgroundTaskDescription: Codable, Equatable, Sendable {
  let transfer: BackgroundTransfer
  /// The response body's size limit in bytes; `nil` for none.
  let maximumBytes: Int?

  init(transfer: BackgroundTransfer, maximumBytes: Int?) {
    self.transfer = transfer
    self.maximumBytes = maximumBytes
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
      self.init(transfer: transfer, maximumBytes: limitOfOlder(transfer))
    } else {
      return nil
    }
  }
}
