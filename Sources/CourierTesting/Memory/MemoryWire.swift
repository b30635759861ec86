import Courier
import Foundation

/// The in-memory connection between a loopback handler and a ``StubTransport`` exchange:
/// what the handler's ``LoopbackResponse`` writes is read as a client reads it off a socket
/// (``ResponseWireParser``) and handed to the exchange, and the exchange going away is what
/// the handler sees as the client disconnecting.
final class MemoryWire: LoopbackWire {
  /// Takes what the bytes said; throws when the exchange refuses more (its reader is gone,
  /// or a limit was passed), which the handler sees as the client hanging up.
  typealias Receiver = @Sendable ([ResponseWireParser.Event]) throws -> Void

  private struct State: Sendable {
    var parser: ResponseWireParser
  }

  private let state: Locked<State>
  private let closed = ClosedSignal()
  private let receive: Receiver
  private let ended: @Sendable () -> Void

  /// A wire for the answer to a `method` request; `ended` runs when the response has ended.
  init(method: String, ended: @escaping @Sendable () -> Void, receive: @escaping Receiver) {
    state = Locked(State(parser: ResponseWireParser(method: method)))
    self.ended = ended
    self.receive = receive
  }

  func send(_ bytes: Data) throws {
    guard !closed.isClosed else { throw LoopbackError("the client has closed the connection") }
    let events = state.withLock { $0.parser.append(bytes) }
    do {
      try receive(events)
    } catch {
      // As over a socket, the write that makes the client hang up has gone out; the
      // next one fails.
      clientGone()
    }
  }

  func abort() {
    let events = state.withLock { $0.parser.close() }
    try? receive(events)
    clientGone()
  }

  func requestEnded() {
    ended()
  }

  var isPeerClosed: Bool {
    closed.isClosed
  }

  func peerClosed() async {
    await closed.wait()
  }

  /// The client went away (cancelled, timed out, stopped reading) or the connection was
  /// closed: later writes fail, and whoever waits for the disconnection is woken.
  func clientGone() {
    closed.fire()
  }

  /// The handler returned: a response it left without an end is ended by closing.
  func handlerReturned() {
    guard !state.withLock({ $0.parser.isDone }) else { return }
    abort()
  }
}
