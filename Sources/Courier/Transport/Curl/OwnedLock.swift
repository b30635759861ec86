// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import Glibc
  import Synchronization

  /// The driver's lock: an `NSLock` that knows whether the calling thread holds it, so that
  /// what would resume a caller from under it (a libcurl callback ending an exchange) waits
  /// until it is let go — no client code runs under the driver's lock — and so that tests can
  /// show it.
  ///
  /// `@unchecked Sendable`: `NSLock` is thread-safe, and the holder is atomic. Only the holder
  /// writes it (after taking the lock, and clearing it before letting go), so a thread reads
  /// its own identity there exactly when it holds the lock.
  final class OwnedLock: @unchecked Sendable {
    private let base = NSLock()
    private let holder = Atomic<UInt>(0)
    /// Where its acquisitions are counted (see ``LockCounter``), if anywhere.
    private let counter = LockCounter.current

    func lock() {
      base.lock()
      counter?.counted()
      holder.store(UInt(pthread_self()), ordering: .relaxed)
    }

    /// Takes the lock if it is free; returns whether it did.
    func `try`() -> Bool {
      guard base.try() else { return false }
      counter?.counted()
      holder.store(UInt(pthread_self()), ordering: .relaxed)
      return true
    }

    func unlock() {
      holder.store(0, ordering: .relaxed)
      base.unlock()
    }

    /// Whether this thread holds the lock.
    var isHeldByCurrentThread: Bool {
      holder.load(ordering: .relaxed) == UInt(pthread_self())
    }
  }
#endif
