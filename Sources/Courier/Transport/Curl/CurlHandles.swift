// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Synchronization

  /// A transport's spare easy handles: a finished transfer's handle is reset and kept for the
  /// next one, so that a request does not allocate and free libcurl's handle (kilobytes, often
  /// allocated on one thread and freed on another, where glibc's arena locks contend).
  ///
  /// The handle recycled last waits in an atomic slot, the others in a lock-guarded box: one
  /// request after another passes its handle on without a lock.
  ///
  /// `@unchecked Sendable`: the slot is atomic, the other handles live in a lock-guarded box,
  /// and a handle taken out is used by the thread that took it alone.
  final class CurlHandles: @unchecked Sendable {
    /// A handle no transfer uses.
    private struct Spare: @unchecked Sendable {
      let easy: UnsafeMutableRawPointer
    }

    /// The last handle recycled, as its address (0: none).
    private let last = Atomic<UInt>(0)
    /// Whether the pool is closed: set once, before the spares are freed.
    private let closed = Atomic<Bool>(false)
    private let spares = Locked<(handles: [Spare], closed: Bool)>(([], false))
    private let maximum: Int

    /// Keeps up to `maximum` spare handles.
    init(maximum: Int) {
      self.maximum = maximum
    }

    /// An easy handle for a new transfer: a spare one, reset, or a new one.
    func make() -> UnsafeMutableRawPointer? {
      if let easy = UnsafeMutableRawPointer(bitPattern: last.exchange(0, ordering: .acquiring)) {
        return easy
      }
      return spares.withLock { $0.handles.popLast()?.easy } ?? courier_curl_easy_init()
    }

    /// Takes back the handle of a transfer that is not (or no longer) in a multi handle: reset
    /// and kept, or freed when enough are kept or the pool is closed.
    func recycle(_ easy: UnsafeMutableRawPointer) {
      courier_curl_easy_reset(easy)
      let address = UInt(bitPattern: easy)
      if !closed.load(ordering: .sequentiallyConsistent),
        last.compareExchange(expected: 0, desired: address, ordering: .sequentiallyConsistent)
          .exchanged
      {
        // Closed meanwhile: `close()` may have looked at the slot before it was filled.
        if closed.load(ordering: .sequentiallyConsistent) { freeLast() }
        return
      }
      let kept = spares.withLock { spares in
        guard !spares.closed, spares.handles.count < maximum else { return false }
        spares.handles.append(Spare(easy: easy))
        return true
      }
      if !kept { courier_curl_easy_cleanup(easy) }
    }

    /// Frees the spare handles; handles recycled from now on are freed at once.
    func close() {
      closed.store(true, ordering: .sequentiallyConsistent)
      freeLast()
      let spare = spares.withLock { spares in
        spares.closed = true
        defer { spares.handles = [] }
        return spares.handles
      }
      for handle in spare { courier_curl_easy_cleanup(handle.easy) }
    }

    /// Frees the handle in the slot, if any (once: whoever empties the slot frees it).
    private func freeLast() {
      let address = last.exchange(0, ordering: .sequentiallyConsistent)
      if let easy = UnsafeMutableRawPointer(bitPattern: address) {
        courier_curl_easy_cleanup(easy)
      }
    }
  }
#endif
