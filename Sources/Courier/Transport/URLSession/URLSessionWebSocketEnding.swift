import Foundation

/// How a `URLSessionWebSocketTask`'s connection ends for Courier's reader: the rules
/// URLSessionWebSocketConnection+Platform.swift applies on Apple platforms, kept pure here so
/// that they are tested on Linux too.
enum URLSessionWebSocketEnding {
  /// Darwin's `EMSGSIZE` ("Message too long", `<sys/errno.h>`): the POSIX error a task's
  /// `receive` fails with when a message is over its `maximumMessageSize`. (Linux's is 90.)
  static let darwinMessageTooLong = 40

  /// What a failed `receive` means: `nil` when the peer has closed (the messages end there,
  /// as after its close frame), otherwise the error the reader gets. A message over the
  /// limit is ``HTTPError/responseTooLarge(limit:)``, as on every transport, whatever the
  /// task's close code says (the task closes with 1009 itself).
  ///
  /// - Parameters:
  ///   - closeCode: The task's `closeCode`, raw (0, `.invalid`, while nothing closed it).
  ///   - peerClosed: Whether the delegate has seen the peer's close frame.
  ///   - cancelled: Whether the reading task was cancelled.
  static func receiveFailure(
    _ error: any Error, closeCode: Int, peerClosed: Bool, maximumMessageSize: Int,
    cancelled: Bool
  ) -> HTTPError? {
    if isMessageTooLong(error) { return .responseTooLarge(limit: maximumMessageSize) }
    if closeCode != 0 || peerClosed { return nil }
    if cancelled { return .cancelled }
    return HTTPError(transportFailure: error)
  }

  /// What the task's end (`didCompleteWithError`) means for whoever still waits on it (its
  /// opening, a ping): `nil` when it ended without an error. When Courier refused its TLS
  /// challenge (`rejection`, kept by the session's rules), URLSession ends it as cancelled
  /// (-999), which alone would read as ``HTTPError/cancelled``: the rejection is the answer
  /// then, as it is for a request.
  static func endFailure(_ error: (any Error)?, rejection: HTTPError?) -> HTTPError? {
    guard let error else { return nil }
    let cancelled =
      (error as NSError).domain == NSURLErrorDomain
      && (error as NSError).code == URLError.cancelled.rawValue
    if let rejection, cancelled { return rejection }
    return HTTPError(transportFailure: error)
  }

  /// The peer's closure as the task keeps it (`closeCode`, `closeReason`), for a `receive`
  /// that ended before the delegate's `didCloseWith` ran; `nil` while the code is `.invalid`.
  static func closure(code: Int, reason: Data?) -> WebSocketClosure? {
    guard code != 0 else { return nil }
    return WebSocketClosure(
      code: WebSocketCloseCode(rawValue: UInt16(clamping: code)),
      reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "")
  }

  /// The server's closure as `didCloseWith` reports it: a close frame without a code comes
  /// as `.invalid` (0), which is RFC 6455's 1005 (no status received).
  static func serverClosure(code: Int, reason: Data?) -> WebSocketClosure {
    closure(code: code == 0 ? 1005 : code, reason: reason)!
  }

  /// The code to answer the peer's close frame with, once it has come (`nil` before): its own
  /// code, as `CurlTransport` answers, or 1000 when it carried none that may be sent back
  /// (1005, 1006, 1015 only report). The answer goes out as soon as the reader sees the end,
  /// and again from `cancel()`, whose own close frame would carry no code: so the close
  /// handshake completes whatever the caller does once its loop is over.
  static func answer(to closure: WebSocketClosure?) -> Int? {
    guard let closure else { return nil }
    return Int(closure.code.isSendable ? closure.code.rawValue : 1000)
  }

  /// Whether `error`, or an error under it, is Darwin's "Message too long" (also once made
  /// an ``HTTPError/transport(_:)``, which keeps it as the `URLError`'s underlying error).
  static func isMessageTooLong(_ error: any Error) -> Bool {
    var next: NSError? = error as NSError
    if case .transport(let urlError)? = error as? HTTPError { next = urlError as NSError }
    while let error = next {
      if error.domain == NSPOSIXErrorDomain && error.code == darwinMessageTooLong { return true }
      next = error.userInfo[NSUnderlyingErrorKey] as? NSError
    }
    return false
  }
}
