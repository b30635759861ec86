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
