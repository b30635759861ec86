import Foundation

/// Where a ``LoopbackResponse`` writes: a TCP connection of the ``LoopbackServer``, or a
/// ``StubTransport`` exchange reading the same bytes in memory.
protocol LoopbackWire: Sendable {
  /// Sends response bytes; throws once the client has gone away.
  func send(_ bytes: Data) throws
  /// Closes the connection at once: the client sees the response end here.
  func abort()
  /// Tells the server that the current request's response has ended.
  func requestEnded()
  /// Whether the client is known to have gone away, or the connection has been closed.
  var isPeerClosed: Bool { get }
  /// Returns once the client has gone away or the connection has been closed, or when the
  /// calling task is cancelled.
  func peerClosed() async
}

extension LoopbackConnection: LoopbackWire {
  func abort() {
    close(gracefully: false)
  }
}
