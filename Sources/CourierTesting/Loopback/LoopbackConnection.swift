import Courier
import Foundation

/// One accepted TCP connection: a thread that reads requests off the socket, and a task
/// that answers the current one.
///
/// The reading thread keeps reading while a handler runs, so it sees at once when the
/// client closes its side; requests that arrive meanwhile (pipelined) wait in the parser
/// and are answered in order. The socket is closed only when the thread has stopped and
/// no request is being answered, so a file descriptor is never used after it is closed.
///
/// A handler may upgrade the connection to a WebSocket: from then on, what arrives goes to
/// its ``LoopbackWebSocket`` (starting with what came after the request head), no further
/// request is read, and the connection is closed when the handler returns.
final class LoopbackConnection: Sendable {
  private struct State: Sendable {
    var parser: LoopbackRequestParser
    /// Where the body of the request being read goes, when bodies stream.
    var body: LoopbackRequestBody.Feed?
    /// A request is being answered: its handler runs, or a 400 is going out.
    var isServing = false
    /// The reading thread has not stopped yet.
    var isReading = true
    /// The socket has been shut down; no further request will be answered.
    var isClosing = false
    /// The file descriptor has been closed.
    var isClosed = false
    var handlerTask: Task<Void, Never>?
    /// The WebSocket the connection was upgraded to.
    var webSocket: LoopbackWebSocket?
  }

  private let socket: Int32
  private let listener: LoopbackListener
  private let state: Locked<State>
  /// Fired when the peer has closed its side (or the socket was shut down).
  private let closedByPeer = ClosedSignal()

  init(socket: Int32, listener: LoopbackListener) {
    self.socket = socket
    self.listener = listener
    state = Locked(State(parser: LoopbackRequestParser(streamsBodies: listener.streamsBodies)))
  }

  /// Starts the reading thread.
  func start() {
    let thread = Thread { [self] in readUntilClosed() }
    thread.name = "LoopbackServer connection"
    thread.start()
  }

  // MARK: - Reading and answering

  private func readUntilClosed() {
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = LoopbackSocket.receive(socket, into: &buffer)
      guard count > 0 else { break }
      let webSocket = state.withLock { state in
        if state.webSocket == nil { state.parser.append(buffer[..<count]) }
        return state.webSocket
      }
      if let webSocket {
        webSocket.feed.append(buffer[..<count])  // blocks while the test is behind
        continue
      }
      feedBody()
      serveNextRequest()
      feedBody()  // what came with a streamed request's head
    }
    let (unfinished, webSocket) = state.withLock { state in
      state.isReading = false
      return (state.body.take(), state.webSocket)
    }
    unfinished?.finish(throwing: LoopbackError("the client closed the connection mid-body"))
    webSocket?.feed.finish()
    closedByPeer.fire()
    closeIfDone()
  }

  /// Hands the streamed body's bytes that have arrived to its handler (blocking while the
  /// handler is behind: the socket is then not read, and TCP holds the client back).
  private func feedBody() {
    let taken = state.withLock { state -> (LoopbackRequestBody.Feed, Data, Bool)? in
      guard let feed = state.body else { return nil }
      do throws(LoopbackError) {
        guard let (bytes, ended) = try state.parser.takeStreamedBody() else { return nil }
        if ended { state.body = nil }
        return (feed, bytes, ended)
      } catch {
        state.body = nil
        feed.finish(throwing: error)
        LoopbackSocket.shutDown(socket, wholly: true)
        return nil
      }
    }
    guard let (feed, bytes, ended) = taken else { return }
    if !bytes.isEmpty { feed.append(bytes) }
    if ended {
      feed.finish()
      serveNextRequest()  // a request that came after the body
    }
  }

  /// Starts answering the next buffered request unless one is being answered.
  private func serveNextRequest() {
    let malformed = state.withLock { state -> LoopbackError? in
      guard !state.isServing, !state.isClosing else { return nil }
      do throws(LoopbackError) {
        guard let parsed = try state.parser.nextRequest() else {
          if state.parser.takeContinueRequest() {
            // Sent under the lock so that nothing else writes meanwhile; it is 25 bytes.
            try? LoopbackSocket.sendAll(socket, Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
          }
          return nil
        }
        state.isServing = true
        listener.requestStarted()
        if let feed = parsed.feed {
          state.body = feed
          if parsed.wantsContinue {
            try? LoopbackSocket.sendAll(socket, Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
          }
        }
        state.handlerTask = Task { await self.answer(parsed) }
        return nil
      } catch {
        state.isServing = true
        return error
      }
    }
    if let malformed { reject(malformed) }
  }

  private func answer(_ parsed: LoopbackRequestParser.Parsed) async {
    let request = parsed.request
    let response = LoopbackResponse(
      connection: self, method: request.method, keepAlive: parsed.keepAlive,
      requestHeaders: request.headers)
    do {
      try await listener.handler(request, response)
      response.handlerEnded(throwing: nil)
    } catch {
      response.handlerEnded(throwing: error)
    }
    parsed.feed?.abandon()  // what of the body the handler left is read and dropped
    if !response.allowsNextRequest { close(gracefully: true) }
    // After the close, which fails a send blocked on a client that does not read.
    state.withLock { $0.webSocket }?.handlerReturned()
    state.withLock { state in
      state.isServing = false
      state.handlerTask = nil
    }
    serveNextRequest()
    closeIfDone()
  }

  /// Answers a request that could not be read with 400 and closes the connection.
  private func reject(_ error: LoopbackError) {
    let body = "Bad Request: \(error.description)\n"
    let head =
      "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
      + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
    try? LoopbackSocket.sendAll(socket, Data((head + body).utf8))
    close(gracefully: true)
    state.withLock { $0.isServing = false }
    closeIfDone()
  }

  // MARK: - Used by responses

  /// Sends response bytes. Only called while a request is being answered, so the socket is open.
  ///
  /// Throws once the peer has closed its side: the first send after a peer's close would
  /// otherwise succeed (only the reset it provokes makes later sends fail), and a test
  /// wants a write after a disconnect to fail every time. HTTP clients do not half-close.
  func send(_ bytes: Data) throws {
    guard !isPeerClosed else { throw LoopbackError("the client has closed the connection") }
    try LoopbackSocket.sendAll(socket, bytes)
  }

  /// Hands the connection over to a WebSocket, for the request being answered: what
  /// arrives from now on goes to it, after what came behind the request head.
  func upgrade() throws -> LoopbackWebSocket {
    try state.withLock { state in
      guard !state.isClosing, state.webSocket == nil else {
        throw LoopbackError("the connection is closing")
      }
      guard let buffered = state.parser.takeRemainder() else {
        throw LoopbackError("the request's body has not all arrived")
      }
      let webSocket = LoopbackWebSocket(connection: self, buffered: buffered)
      state.webSocket = webSocket
      return webSocket
    }
  }

  /// Tells the server that the current request's response has ended.
  func requestEnded() {
    listener.requestEnded()
  }

  /// Whether the peer has closed its side, or the connection has been closed.
  var isPeerClosed: Bool {
    closedByPeer.isClosed
  }

  /// Returns once the peer has closed its side or the connection has been closed, or when
  /// the calling task is cancelled.
  func peerClosed() async {
    await closedByPeer.wait()
  }

  // MARK: - Closing

  /// Closes the connection: after the bytes already sent (`gracefully`, only the sending
  /// side is shut down) or at once. The reading thread wakes, and once nothing is being
  /// answered, the descriptor is closed.
  func close(gracefully: Bool = false) {
    let webSocket = state.withLock { state -> LoopbackWebSocket? in
      guard !state.isClosed else { return nil }
      state.isClosing = true
      LoopbackSocket.shutDown(socket, wholly: !gracefully)
      return state.webSocket
    }
    // The reading thread, if held back, reads on to see the end.
    if !gracefully { webSocket?.feed.stopHoldingBack() }
  }

  /// Closes the connection at once and cancels the handler task, for `stop()`.
  func stop() {
    let (task, webSocket) = state.withLock { state in
      if !state.isClosed {
        state.isClosing = true
        LoopbackSocket.shutDown(socket, wholly: true)
      }
      return (state.handlerTask, state.webSocket)
    }
    webSocket?.feed.stopHoldingBack()
    task?.cancel()
  }

  private func closeIfDone() {
    let closed = state.withLock { state in
      guard !state.isReading, !state.isServing, !state.isClosed else { return false }
      state.isClosed = true
      LoopbackSocket.release(socket)
      return true
    }
    if closed { listener.connectionClosed(self) }
  }
}
