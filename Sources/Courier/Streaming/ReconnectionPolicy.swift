/// When and how often an event stream (``HTTPClient/events(_:reconnection:options:)``) or a
/// ``WebSocket`` reconnects after its connection is lost.
public struct ReconnectionPolicy: Sendable {
  /// Whether to reconnect at all.
  public var reconnects: Bool
  /// How long to wait before reconnecting (3 seconds by default), until the stream names its
  /// own time (`retry:`). After a connection that gave no event, an event stream waits at
  /// least this long whatever `retry:` said.
  public var delay: Duration
  /// How many reconnections in a row may fail (or, for an event stream, end before any
  /// event) before the sequence gives up with the last error; `nil` for no limit. A
  /// connection that works resets the count. (Unlike ``RetryPolicy/maximumAttempts``, which
  /// counts every attempt at one request, the first included.)
  public var maximumConsecutiveFailures: Int?

  /// A policy.
  public init(
    reconnects: Bool = true, delay: Duration = .seconds(3), maximumConsecutiveFailures: Int? = nil
  ) {
    self.reconnects = reconnects
    self.delay = delay
    self.maximumConsecutiveFailures = maximumConsecutiveFailures
  }

  /// Reconnect after 3 seconds (or the stream's `retry:`), without limit.
  public static let `default` = ReconnectionPolicy()
  /// Never reconnect: the sequence ends with the stream.
  public static let never = ReconnectionPolicy(reconnects: false)
}
