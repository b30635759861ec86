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

  func ping(answered: @escaping @Sendable (Result<Void, HTTPError>) -> Void) {
    engine.ping(answered: answered)
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
  /// handshake (``HTTPError/timedOut``); cancelling the caller ends them at once (the
  /// transport's `connect` is held to both, as its contract says).
  static func open(
    _ request: TransportRequest, options: TransportWebSocketOptions,
    connect: (URL, TransportOptions) async throws(HTTPError) -> any TransportByteChannel
  ) async throws(HTTPError) -> TransportWebSocket {
    let url = try WebSocketHandshake.httpURL(for: request.head.url)
    let upgrade = try WebSocketUpgrade(request, url: url, options: options)
    guard !Task.isCancelled else { throw .cancelled }
    // On a test's clock the opening has a timer of its own, let go (and its sleeper with it)
    // once the opening ends: a sleeper left on that clock would count as a wait.
    let timer = options.timer.map { DeadlineTimer(clock: $0.clock) } ?? Self.timer
    let opening = Opening()
    let deadline = options.transport.deadline.map { timer.schedule(opening, at: $0) }
    defer { if let deadline { timer.cancel(deadline) } }
    do throws(HTTPError) {
      // The transport's connect ends at the same deadline, and when the caller is cancelled.
      let channel = try await connect(url, options.transport)
      guard opening.adopt(channel) else { throw .timedOut }
      let (response, subprotocol, rest) = try await handshake(upgrade, on: channel)
      // Open: the deadline no longer applies (unless it closed the channel just now).
      guard opening.ends() else {
        channel.close()
        throw .timedOut
      }
      let engine = Engine(channel: channel, options: options, timer: options.timer ?? Self.timer)
      engine.start(after: rest)
      return TransportWebSocket(
        response: response, subprotocol: subprotocol, connection: ChannelWebSocket(engine))
    } catch {
      throw opening.hasExpired ? .timedOut : error
    }
  }

  /// Writes the upgrade request on `channel` and reads the answer: a `101` accepted by the
  /// handshake's checks, with the bytes after its head (the first frames). Cancelling the
  /// opening closes the channel; so does any failure.
  private static func handshake(_ upgrade: WebSocketUpgrade, on channel: any TransportByteChannel)
    async throws(HTTPError) -> (HTTPResponse, String?, [UInt8])
  {
    let answer = await withTaskCancellationHandler {
      () async -> Result<WebSocketUpgrade.Answer, HTTPError> in
      do throws(HTTPError) {
        try await channel.write(Data(upgrade.head))
        var reader = WebSocketUpgrade.AnswerReader(upgrade)
        while true {
          let answer = try reader.read(try await channel.read())
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
    return (response, subprotocol, rest)
  }

  /// The timer of connections whose options name none (and of every WebSocket's close
  /// timeout): one, on the continuous clock.
  static let timer = DeadlineTimer()
}

/// The deadline of an opening: once due, the channel (once connected) is closed, and the
/// opening fails with ``HTTPError/timedOut``.
private final class Opening: DeadlineTimed {
  private let state = Locked<(channel: (any TransportByteChannel)?, expired: Bool, ended: Bool)>(
    (nil, false, false))

  var hasExpired: Bool { state.withLock { $0.expired } }

  /// The handshake goes on on `channel`, unless the deadline has passed (then it is closed).
  func adopt(_ channel: any TransportByteChannel) -> Bool {
    let expired = state.withLock { state in
      state.channel = channel
      return state.expired
    }
    if expired { channel.close() }
    return !expired
  }

  /// The opening has ended with an open connection: returns `false` if the deadline passed
  /// first (it closed the channel).
  func ends() -> Bool {
    state.withLock { state in
      state.channel = nil
      state.ended = true
      return !state.expired
    }
  }

  func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    let channel = state.withLock { state -> (any TransportByteChannel)? in
      guard !state.ended else { return nil }
      state.expired = true
      return state.channel.take()
    }
    channel?.close()
    return nil
  }
}
