import Foundation

/// The cache's entries in memory, within a byte budget: past it, the least recently used
/// entries go first.
final class MemoryCacheStore: Sendable {
  private struct Slot: Sendable {
    var entry: CacheEntry
    var lastUse: UInt64
  }

  /// Under the lock. Uses are ticks of a counter; the heap holds (tick, key) for each use
  /// and is read lazily: a popped tick older than the slot's last use is skipped.
  private struct State: Sendable {
    var slots: [String: [String: Slot]] = [:]
    var size = 0
    var tick: UInt64 = 0
    var uses = MinHeap<(UInt64, String, String)>(by: { $0.0 < $1.0 })
    var count = 0

    mutating func use(_ primary: String, _ variant: String) {
      tick += 1
      slots[primary]?[variant]?.lastUse = tick
      uses.push((tick, primary, variant))
      if uses.count > 4 * count + 64 { compact() }
    }

    /// Rebuilds the heap from the slots, dropping every stale use.
    mutating func compact() {
      var elements: [(UInt64, String, String)] = []
      for (primary, variants) in slots {
        for (variant, slot) in variants { elements.append((slot.lastUse, primary, variant)) }
      }
      uses = MinHeap(elements, by: { $0.0 < $1.0 })
    }

    mutating func remove(_ primary: String, _ variant: String) {
      guard let slot = slots[primary]?.removeValue(forKey: variant) else { return }
      if slots[primary]?.isEmpty == true { slots[primary] = nil }
      size -= slot.entry.cost
      count -= 1
    }

    /// Removes least recently used entries until `size` is within `capacity`.
    mutating func evict(to capacity: Int) {
      while size > capacity, let (tick, primary, variant) = uses.pop() {
        guard slots[primary]?[variant]?.lastUse == tick else { continue }
        remove(primary, variant)
      }
    }
  }

  /// The budget in bytes.
  let capacity: Int
  private let state = Locked(State())

  init(capacity: Int) {
    self.capacity = max(0, capacity)
  }

  /// The bytes the entries take, as ``CacheEntry/cost`` counts them.
  var size: Int { state.withLock { $0.size } }

  /// The stored responses for `primary` that `matching` accepts, each marked as used (the
  /// others are not: a variant no request matches must not stay recently used).
  func entries(
    for primary: String, matching: (CacheEntry) -> Bool = { _ in true }
  ) -> [CacheEntry] {
    state.withLock { state in
      guard let variants = state.slots[primary] else { return [] }
      var entries: [CacheEntry] = []
      for (variant, slot) in variants where matching(slot.entry) {
        state.use(primary, variant)
        entries.append(slot.entry)
      }
      return entries
    }
  }

  /// Stores `entry`, replacing the one with the same keys, and evicts what no longer
  /// fits. An entry over a quarter of the budget is not kept.
  func store(_ entry: CacheEntry) {
    let primary = entry.metadata.primaryKey
    let variant = entry.metadata.variantKey
    state.withLock { state in
      state.remove(primary, variant)
      guard entry.cost <= capacity / 4 else { return }
      state.slots[primary, default: [:]][variant] = Slot(entry: entry, lastUse: 0)
      state.size += entry.cost
      state.count += 1
      state.use(primary, variant)
      state.evict(to: capacity)
    }
  }

  /// Removes every entry for `primary`.
  func remove(_ primary: String) {
    state.withLock { state in
      for variant in state.slots[primary]?.keys.map({ $0 }) ?? [] {
        state.remove(primary, variant)
      }
    }
  }

  /// Removes the entry with these keys, if stored.
  func remove(_ primary: String, variant: String) {
    state.withLock { $0.remove(primary, variant) }
  }

  /// Removes every entry.
  func removeAll() {
    state.withLock { $0 = State() }
  }
}
