import Courier

/// A one-shot signal from a handler to the test: `fire()` any number of times, `wait()`
/// returns after the first.
public struct Signal: Sendable {
  private let stream: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation

  /// A signal not yet fired.
  public init() {
    (stream, continuation) = AsyncStream<Void>.makeStream()
  }

  /// Fires the signal; later fires change nothing for the waiter.
  public func fire() {
    continuation.yield()
  }

  /// Returns once the signal has fired (at once if it already has). One waiter only.
  public func wait() async {
    var iterator = stream.makeAsyncIterator()
    _ = await iterator.next()
  }
}

/// A signal that fires once `count` parties have each called `tick()`: for a test waiting
/// until every one of many connections has ended.
public struct Countdown: Sendable {
  private let left: Locked<Int>
  private let signal = Signal()

  /// A countdown from `count`.
  public init(_ count: Int) {
    left = Locked(count)
  }

  /// One party is done; the last fires the signal.
  public func tick() {
    let remaining = left.withLock { left in
      left -= 1
      return left
    }
    if remaining == 0 { signal.fire() }
  }

  /// Returns once every party has ticked. One waiter only.
  public func wait() async {
    await signal.wait()
  }
}
