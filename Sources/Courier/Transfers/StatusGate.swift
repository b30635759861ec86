import Foundation

/// Stands between the transport and a transfer's receiver: passes on what belongs to a
/// response of acceptable status, and keeps the start of any other response's body for the
/// ``HTTPError/unacceptableStatus(_:)`` it becomes, so that a 404 never reaches a file.
final class StatusGate: TransferReceiver {
  /// How much of an unacceptable response's body is kept for the error.
  static let errorBodyLimit = 64 * 1024

  private struct State {
    /// Whether the current response's status is acceptable; `nil` before any head.
    var passing: Bool?
    var errorBody = Data()
  }

  private let acceptable: StatusCodes
  private let receiver: any TransferReceiver
  private let state = Locked(State())

  init(acceptable: StatusCodes, receiver: any TransferReceiver) {
    self.acceptable = acceptable
    self.receiver = receiver
  }

  /// The start of the last unacceptable response's body.
  var errorBody: Data { state.withLock { $0.errorBody } }

  func sent(_ bytes: Int64, of expected: Int64?) {
    receiver.sent(bytes, of: expected)
  }

  func received(head: HTTPResponse) throws(HTTPError) {
    let passing = acceptable.contains(head.status)
    state.withLock {
      $0.passing = passing
      $0.errorBody = Data()
    }
    if passing { try receiver.received(head: head) }
  }

  func wrote(_ bytes: Int64, of expected: Int64?) {
    // A download task tells its status only at the end, so progress before that is passed on.
    if state.withLock({ $0.passing != false }) { receiver.wrote(bytes, of: expected) }
  }

  func received(file url: URL) throws(HTTPError) {
    if state.withLock({ $0.passing == true }) {
      try receiver.received(file: url)
    } else {
      let start = FileHandle(forReadingAtPath: url.path).flatMap { handle in
        defer { try? handle.close() }
        return try? handle.read(upToCount: Self.errorBodyLimit)
      }
      state.withLock { $0.errorBody = start ?? Data() }
    }
  }

  func received(_ chunk: Data) throws(HTTPError) {
    let passing = state.withLock { state in
      if state.passing != true {
        let room = Self.errorBodyLimit - state.errorBody.count
        if room > 0 { state.errorBody.append(chunk.prefix(room)) }
      }
      return state.passing == true
    }
    if passing { try receiver.received(chunk) }
  }
}
