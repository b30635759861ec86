import Foundation

/// Server-Sent Events as an `AsyncSequence`, with reconnection. Made by
/// ``HTTPClient/events(_:reconnection:options:)``.
public struct ServerSentEvents: AsyncSequence, Sendable {
  /// An event.
  public typealias Element = ServerSentEvent
  /// The error every failure is thrown as.
  public typealias Failure = HTTPError
  /// Opens a stream, given the last event ID seen.
  typealias Connect = @Sendable (String) async throws(HTTPError) -> ByteStream

  let reconnection: ReconnectionPolicy
  /// The clock reconnection delays are waited on.
  let clock: any TransportClock
  /// The most bytes an event still being received may hold; `nil` for no limit.
  let maximumEventBytes: Int?
  let connect: Connect

  /// Connects when the first event is asked for.
  public func makeAsyncIterator() -> Iterator {
    Iterator(
      reconnection: reconnection, clock: clock, maximumEventBytes: maximumEventBytes,
      connect: connect)
  }

  /// Reads the events, connecting and reconnecting as needed.
  public struct Iterator: AsyncIteratorProtocol {
    let reconnection: ReconnectionPolicy
    let clock: any TransportClock
    let maximumEventBytes: Int?
    let connect: Connect
    private var parser = ServerSentEventParser()
    private var pending: [ServerSentEvent] = []
    private var chunks: ByteStream.Iterator?
    private var connections = 0
    private var failedInARow = 0
    /// Whether the current (or last) connection gave an event.
    private var gaveEvent = false
    private var finished = false
    /// The limit an event went past: thrown once the events before it are delivered.
    private var tooLarge: Int?

    init(
      reconnection: ReconnectionPolicy, clock: any TransportClock, maximumEventBytes: Int?,
      connect: @escaping Connect
    ) {
      self.reconnection = reconnection
      self.clock = clock
      self.maximumEventBytes = maximumEventBytes
      self.connect = connect
    }

    /// The next event, or `nil` when the stream has ended for good.
    public mutating func next() async throws(HTTPError) -> ServerSentEvent? {
      try await next(isolation: nil)
    }

    /// The next event, or `nil` when the stream has ended for good. Once it has thrown, the
    /// stream has ended: later calls return `nil`, and send nothing.
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
      -> ServerSentEvent?
    {
      do throws(HTTPError) {
        return try await advance(isolation: actor)
      } catch {
        // What was not retried is not retried by a caller who asks again either.
        finished = true
        chunks = nil
        throw error
      }
    }

    /// The next event: connects, reads and reconnects until there is one, or the end.
    private mutating func advance(isolation actor: isolated (any Actor)?) async throws(HTTPError)
      -> ServerSentEvent?
    {
      while true {
        if !pending.isEmpty { return pending.removeFirst() }
        if let limit = tooLarge.take() {
          finished = true
          throw .responseTooLarge(limit: limit)
        }
        if finished { return nil }
        guard var current = chunks else {
          try await open(isolation: actor)
          continue
        }
        do throws(HTTPError) {
          let chunk = try await current.next(isolation: actor)
          chunks = current
          guard let chunk else {
            try ended()
            continue
          }
          pending = parser.parse(chunk)
          if !pending.isEmpty {
            failedInARow = 0
            gaveEvent = true
          }
          if let limit = maximumEventBytes, parser.pendingByteCount > limit {
            // The stream stops now (its reader let go); the events before are delivered
            // first. Not retried: the server would send the same event again.
            chunks = nil
            parser.finish()
            tooLarge = limit
          }
        } catch {
          try lost(error)
        }
      }
    }

    /// Connects, or reconnects after the delay; ends the sequence on a 204.
    private mutating func open(isolation actor: isolated (any Actor)?) async throws(HTTPError) {
      if connections > 0 {
        // The stream's `retry:` names the wait after a connection that worked. After one that
        // gave no event it cannot make the wait shorter than the policy's: a server that
        // closes at once after `retry: 0` would otherwise be reconnected to in a tight loop.
        let asked = parser.reconnectionTime.map { Duration.milliseconds($0) }
        let delay =
          gaveEvent
          ? asked ?? reconnection.delay : Swift.max(asked ?? .zero, reconnection.delay)
        do {
          try await clock.wait(for: delay)
        } catch {
          throw .cancelled
        }
      }
      connections += 1
      gaveEvent = false
      let stream: ByteStream
      do throws(HTTPError) {
        stream = try await connect(parser.lastEventID)
      } catch {
        try lost(error)
        return
      }
      switch stream.response.status {
      case 204:
        finished = true  // the server says: do not reconnect
        return
      case 200:
        break
      default:
        throw .unacceptableStatus(stream.response)  // an event stream is a 200, or nothing
      }
      let type = stream.response.headers["Content-Type"] ?? ""
      let mediaType = type.split(separator: ";").first.map {
        $0.trimmingCharacters(in: .whitespaces).lowercased()
      }
      guard mediaType == "text/event-stream" else {
        throw .decodingFailed(
          reason: "expected an event stream (text/event-stream), got '\(type)'",
          response: stream.response)
      }
      chunks = stream.makeAsyncIterator()
    }

    /// The server ended the stream: reconnect if the policy allows, otherwise end.
    private mutating func ended() throws(HTTPError) {
      chunks = nil
      parser.finish()
      guard reconnection.reconnects else {
        finished = true
        return
      }
      try countFailure(.transport(URLError(.networkConnectionLost)))
    }

    /// The connection failed: reconnect if the policy allows and a reconnection can cure it
    /// (a dropped connection, a timeout); otherwise throw.
    private mutating func lost(_ error: HTTPError) throws(HTTPError) {
      chunks = nil
      parser.finish()
      switch error {
      case .transport, .timedOut:
        guard reconnection.reconnects else { throw error }
        try countFailure(error)
      default:
        throw error
      }
    }

    /// One more reconnection without an event in between; past the policy's maximum, the
    /// sequence gives up with `error`.
    private mutating func countFailure(_ error: HTTPError) throws(HTTPError) {
      failedInARow += 1
      if let maximum = reconnection.maximumConsecutiveFailures, failedInARow > maximum {
        throw error
      }
    }
  }
}
