// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import Glibc

  /// The driver's lock: an `NSLock` that, in debug builds, knows which thread holds it, so
  /// that tests can show no client code runs under it (a middleware, an observer, a request
  /// let through the concurrency limits).
  ///
  /// `@unchecked Sendable`: `NSLock` is thread-safe, and the holder is under a lock of its own.
  final class OwnedLock: @unchecked Sendable {
    private let base = NSLock()
    #if DEBUG
      private let holder = Locked<pthread_t?>(nil)
    #endif

    func lock() {
      base.lock()
      held()
    }

    /// Takes the lock if it is free; returns whether it did.
    func `try`() -> Bool {
      guard base.try() else { return false }
      held()
      return true
    }

    func unlock() {
      #if DEBUG
        holder.withLock { $0 = nil }
      #endif
      base.unlock()
    }

    /// Whether this thread holds the lock (always `false` in release builds).
    var isHeldByCurrentThread: Bool {
      #if DEBUG
        let me = pthread_self()
        return holder.withLock { $0.map { pthread_equal($0, me) != 0 } ?? false }
      #else
        return false
      #endif
    }

    private func held() {
      #if DEBUG
        let me = pthread_self()
        holder.withLock { $0 = me }
      #endif
    }
  }
#endif
