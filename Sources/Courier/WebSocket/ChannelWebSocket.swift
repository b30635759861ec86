import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// WebSocket's protocol (RFC 6455) on a byte channel, for every transport that can
/// ``HTTPTransport/connect(to:options:)``: the upgrade request and the server's answer, then
/// framing, masking, UTF-8 checked as it arrives, the message limit, pings and pongs, the
/// read-ahead, and the close handshake, by the rules ``TransportWebSocketConnection`` states.
///
/// What callers hold; the connection itself is its ``Engine``, which its reading and writing
/// tasks keep until it has ended. Let go of while open, it ends the connection.
final class ChannelWebSocket: TransportWebSocketConnection {
  let engine: Engine

  init(_ engine: Engine) {
    self.engine = engine
  }

  deinit {
    engine.cancel()
  }

  var peerClosure: WebSocketClosure? { engine.state.withLock { $0.peerClosure } }

  func send(_ message: WebSocketMessage) async throws(HTTPError) {
    try await engine.send(message)
  }

  func receive() async throws(HTTPError) -> WebSocketMessage? {
    try await engine.receive()
  }

  func ping() async throws(HTTPError) {
    try await engine.ping()
  }

  func close(_ code: WebSocketCloseCode, reason: String) async {
    await engine.close(code, reason: reason)
  }

  func cancel() {
    engine.cancel()
  }

  /// Connects with `connect` (to the request's URL as `http` or `https`) and runs the opening
  /// handshake on the channel; returns once the server has accepted it. What cannot be sent
  /// (a URL that is not `ws`, `wss`, `http` or `https`, a subprotocol that is not a token)
  /// fails first, with nothing sent. `options.transport.deadline` bounds connecting and the
  /// handshake (``HTTPError/timedOut``); cancelling the caller ends them at once.
  static func open(
    _ request: TransportRequest, options: TransportWebSocketOptions,
    connect:
      @escaping @Sendable (URL, TransportOptions) async throws(HTTPError) ->
      any TransportByteChannel
  ) async throws(HTTPError) -> TransportWebSocket {
    let url = try WebSocketHandshake.httpURL(for: request.head.url)
    let upgrade = try WebSocketUpgrade(request, url: url, options: options)
    guard !Task.isCancelled else { throw .cancelled }
    let timer = options.timer ?? Self.timer
    // Whichever comes first answers the caller: the opening, its deadline, or a cancellation
    // (which does not wait for a transport to notice, in a name lookup or a TLS handshake).
    let outcome = FirstOutcome<Result<TransportWebSocket, HTTPError>>()
    let opening = Task {
      let result: Result<TransportWebSocket, HTTPError>
      do throws(HTTPError) {
        let channel = try await connect(url, options.transport)
        result = .success(try await handshake(upgrade, on: channel, options: options, timer: timer))
      } catch {
        result = .failure(error)
      }
      // A connection opened after its caller left is closed at once.
      if !outcome.finish(result), case .success(let socket) = result {
        socket.connection.cancel()
      }
    }
    let deadline = options.transport.deadline.map { deadline in
      timer.schedule(OpeningDeadline(outcome: outcome, opening: opening), at: deadline)
    }
    let result = await withTaskCancellationHandler {
      await outcome.value()
    } onCancel: {
      outcome.finish(.failure(.cancelled))
      opening.cancel()
    }
    if let deadline { timer.cancel(deadline) }
    return try result.get()
  }

  /// Writes the upgrade request on `channel` and reads the answer; on a `101` the
  /// connection is open, with the bytes after the answer's head as its first frames.
  /// Cancelling the opening closes the channel; so does any failure.
  private static func handshake(
    _ upgrade: WebSocketUpgrade, on channel: any TransportByteChannel,
    options: TransportWebSocketOptions, timer: DeadlineTimer
  ) async throws(HTTPError) -> TransportWebSocket {
    let answer = await withTaskCancellationHandler {
      () async -> Result<WebSocketUpgrade.Answer, HTTPError> in
      do throws(HTTPError) {
        try await channel.write(Data(upgrade.head))
        var bytes: [UInt8] = []
        while true {
          let read = try await channel.read()
          if let read { bytes += read }
          let answer = try upgrade.read(bytes, atEnd: read == nil)
          if case .accepted = answer { return .success(answer) }
        }
      } catch {
        return .failure(error)
      }
    } onCancel: {
      channel.close()
    }
    guard case .success(.accepted(let response, let subprotocol, let rest)) = answer else {
      channel.close()
      if case .failure(let error) = answer { throw error }
      throw .cancelled
    }
    let engine = Engine(channel: channel, options: options, timer: timer)
    engine.start(after: rest)
    return TransportWebSocket(
      response: response, subprotocol: subprotocol, connection: ChannelWebSocket(engine))
  }

  /// The timer of connections whose options name none: one, on the continuous clock.
  private static let timer = DeadlineTimer()
}

/// The deadline of an opening: it fails with ``HTTPError/timedOut`` unless it has ended.
private final class OpeningDeadline: DeadlineTimed {
  let outcome: FirstOutcome<Result<TransportWebSocket, HTTPError>>
  let opening: Task<Void, Never>

  init(outcome: FirstOutcome<Result<TransportWebSocket, HTTPError>>, opening: Task<Void, Never>) {
    self.outcome = outcome
    self.opening = opening
  }

  func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    if outcome.finish(.failure(.timedOut)) { opening.cancel() }
    return nil
  }
}
