/// Holds every caller of `arrive()` until `count` callers have arrived, then lets them all
/// through: a way to have that many handlers running at once without sleeping.
public actor ArrivalGate {
  private let count: Int
  private var arrived = 0
  private var waiting: [CheckedContinuation<Void, Never>] = []

  /// A gate that opens for the `count`-th caller.
  public init(count: Int) {
    self.count = count
  }

  /// Waits until `count` callers have arrived (returns at once from then on).
  public func arrive() async {
    arrived += 1
    if arrived >= count {
      for waiter in waiting { waiter.resume() }
      waiting = []
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }
}
