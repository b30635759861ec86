import Foundation

/// When and how often ``HTTPClient/events(_:reconnection:options:)`` reconnects.
public struct ReconnectionPolicy: Sendable {
  /// Whether to reconnect at all.
  public var reconnects: Bool
  /// How long to wait before reconnecting, until the stream names its own time (`retry:`).
  public var delay: Duration
  /// How many reconnections in a row may fail (or end before any event) before the
  /// sequence gives up with the last error; `nil` for no limit.
  public var maximumAttempts: Int?

  /// A policy.
  public init(reconnects: Bool = true, delay: Duration = .seconds(3), maximumAttempts: Int? = nil) {
    self.reconnects = reconnects
    self.delay = delay
    self.maximumAttempts = maximumAttempts
  }

  /// Reconnect after 3 seconds (or the stream's `retry:`), without limit.
  public static let `default` = ReconnectionPolicy()
  /// Never reconnect: the sequence ends with the stream.
  public static let never = ReconnectionPolicy(reconnects: false)
}

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
  let connect: Connect

  /// Connects when the first event is asked for.
  public func makeAsyncIterator() -> Iterator {
    Iterator(reconnection: reconnection, connect: connect)
  }

  /// Reads the events, connecting and reconnecting as needed.
  public struct Iterator: AsyncIteratorProtocol {
    let reconnection: ReconnectionPolicy
    let connect: Connect
    private var parser = ServerSentEventParser()
    private var pending: [ServerSentEvent] = []
    private var chunks: ByteStream.Iterator?
    private var connections = 0
    private var failedInARow = 0
    private var finished = false

    init(reconnection: ReconnectionPolicy, connect: @escaping Connect) {
      self.reconnection = reconnection
      self.connect = connect
    }

    /// The next event, or `nil` when the stream has ended for good.
    public mutating func next() async throws(HTTPError) -> ServerSentEvent? {
      try await next(isolation: nil)
    }

    /// The next event, or `nil` when the stream has ended for good.
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
      -> ServerSentEvent?
    {
      while true {
        if !pending.isEmpty { return pending.removeFirst() }
        if finished { return nil }
        guard var current = chunks else {
          try await open(isolation: actor)
          continue
        }
        do throws(HTTPError) {
          let chunk = try await current.next(isolation: actor)
          chunks = current
          guard let chunk else {
            try lost(.transport(URLError(.networkConnectionLost)))
            continue
          }
          pending = parser.parse(chunk)
          if !pending.isEmpty { failedInARow = 0 }
        } catch {
          try lost(error)
        }
      }
    }

    /// Connects, or reconnects after the delay; ends the sequence on a 204.
    private mutating func open(isolation actor: isolated (any Actor)?) async throws(HTTPError) {
      if connections > 0 {
        let delay = parser.reconnectionTime.map { Duration.milliseconds($0) } ?? reconnection.delay
        do {
          try await Task.sleep(for: delay)
        } catch {
          throw .cancelled
        }
      }
      connections += 1
      let stream: ByteStream
      do throws(HTTPError) {
        stream = try await connect(parser.lastEventID)
      } catch {
        try lost(error)
        return
      }
      if stream.response.status == 204 {
        finished = true
        return
      }
      let type = stream.response.headers["Content-Type"] ?? ""
      guard type.lowercased().hasPrefix("text/event-stream") else {
        throw .decodingFailed(
          reason: "expected an event stream (text/event-stream), got '\(type)'",
          response: stream.response)
      }
      chunks = stream.makeAsyncIterator()
    }

    /// The stream ended or failed: reconnect if the policy allows and the error is one a
    /// reconnection can cure (a connection that dropped or a stream that ended); otherwise
    /// end or throw.
    private mutating func lost(_ error: HTTPError) throws(HTTPError) {
      chunks = nil
      parser.finish()
      let curable: Bool
      switch error {
      case .transport, .timedOut: curable = true
      default: curable = false
      }
      guard reconnection.reconnects, curable else {
        if case .transport(let underlying) = error, underlying.code == .networkConnectionLost,
          !reconnection.reconnects
        {
          finished = true  // the stream ended, and that is the end
          return
        }
        throw error
      }
      failedInARow += 1
      if let maximum = reconnection.maximumAttempts, failedInARow > maximum { throw error }
    }
  }
}
