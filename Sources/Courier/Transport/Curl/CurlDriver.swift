// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation

  /// A libcurl multi handle and the one thread that drives it: every call on the multi
  /// handle and its transfers' easy handles happens there (libcurl's handles are not
  /// thread-safe), and callers reach it through a command queue and `curl_multi_wakeup`.
  ///
  /// The loop: take the commands, let libcurl move bytes (`curl_multi_perform`, which runs
  /// the transfers' callbacks), finish the transfers it is done with, end those past their
  /// deadline or idle too long, and sleep in `curl_multi_poll` until a socket is ready, a
  /// command arrives or the next timeout is due.
  ///
  /// `@unchecked Sendable`: `commands` is a lock-guarded box; `active` and `multi`'s use
  /// belong to the driver's thread (`multi` itself is set once; `curl_multi_wakeup` is the
  /// one call libcurl allows from any thread).
  final class CurlDriver: @unchecked Sendable {
    private enum Command {
      case add(CurlTransfer)
      case remove(CurlTransfer)
      case resume(CurlTransfer)
      case shutdown
    }

    private let multi: UnsafeMutableRawPointer
    private let commands = Locked<[Command]>([])
    /// The transfers in the multi handle, by easy handle (the driver's thread's).
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var stopping = false

    /// A driver whose multi handle keeps up to `maximumConnectionsPerHost` connections to a
    /// host (HTTP/2 multiplexes many requests over one).
    init(maximumConnectionsPerHost: Int) throws(HTTPError) {
      try Curl.library.get()
      guard let multi = courier_curl_multi_init() else {
        throw Curl.unavailable("CurlTransport: curl_multi_init failed")
      }
      self.multi = multi
      _ = courier_curl_multi_setopt_long(multi, Curl.MultiOption.pipelining, Curl.multiplex)
      _ = courier_curl_multi_setopt_long(
        multi, Curl.MultiOption.maxHostConnections, maximumConnectionsPerHost)
      let thread = Thread { [self] in run() }
      thread.name = "Courier CurlTransport"
      thread.start()
    }

    func add(_ transfer: CurlTransfer) { submit(.add(transfer)) }
    func remove(_ transfer: CurlTransfer) { submit(.remove(transfer)) }
    func resume(_ transfer: CurlTransfer) { submit(.resume(transfer)) }

    /// Ends the loop once the transfers under way have finished; the multi handle is freed.
    func shutdown() { submit(.shutdown) }

    private func submit(_ command: Command) {
      commands.withLock { $0.append(command) }
      _ = courier_curl_multi_wakeup(multi)
    }

    // MARK: - The driver's thread

    private func run() {
      while true {
        for command in commands.withLock({ commands in
          defer { commands.removeAll(keepingCapacity: true) }
          return commands
        }) {
          handle(command)
        }
        // The transport is gone: the transfers under way (a body still being read) finish
        // first, as a URLSession's tasks do after `finishTasksAndInvalidate()`.
        if stopping && active.isEmpty { break }
        var running: Int32 = 0
        _ = courier_curl_multi_perform(multi, &running)
        var easy: UnsafeMutableRawPointer?
        var code: Int32 = 0
        while courier_curl_multi_next_done(multi, &easy, &code) == 1 {
          if let easy, let transfer = active[easy] {
            take(transfer)?.finished(code: code)
          }
        }
        let wake = enforceTimeouts()
        var descriptors: Int32 = 0
        _ = courier_curl_multi_poll(multi, wake, &descriptors)
      }
      _ = courier_curl_multi_cleanup(multi)
    }

    private func handle(_ command: Command) {
      switch command {
      case .add(let transfer):
        guard let easy = transfer.easy else { return }
        guard !transfer.hasEnded else { return transfer.abandoned() }
        guard courier_curl_multi_add_handle(multi, easy) == 0 else {
          transfer.end(with: Curl.unavailable("CurlTransport: curl_multi_add_handle failed"))
          transfer.abandoned()
          return
        }
        active[easy] = transfer
      case .remove(let transfer):
        // Taking a handle out mid-transfer closes its connection at once.
        take(transfer)?.abandoned()
      case .resume(let transfer):
        guard let easy = transfer.easy, active[easy] != nil, transfer.pausedForReader else {
          return
        }
        transfer.pausedForReader = false
        // libcurl may hand the held bytes to the write callback right here.
        _ = courier_curl_easy_pause(easy, Curl.continueTransfer)
      case .shutdown:
        stopping = true
      }
    }

    /// Takes `transfer` out of the multi handle, if it is in; returns it then.
    private func take(_ transfer: CurlTransfer) -> CurlTransfer? {
      guard let easy = transfer.easy, active.removeValue(forKey: easy) != nil else { return nil }
      _ = courier_curl_multi_remove_handle(multi, easy)
      return transfer
    }

    /// Ends the transfers past their deadline or idle for too long, and returns how long
    /// the loop may sleep, in milliseconds, before the next one is due (at most a second).
    private func enforceTimeouts() -> Int32 {
      let now = ContinuousClock.now
      var next = now + .seconds(1)
      for transfer in Array(active.values) {
        var due = transfer.deadline
        // A transfer paused for its reader is waiting on the caller, not idle.
        if let idle = transfer.options.idleTimeout, !transfer.pausedForReader {
          let idleEnd = transfer.lastActivity + idle
          due = due.map { min($0, idleEnd) } ?? idleEnd
        }
        guard let due else { continue }
        if due <= now {
          transfer.end(with: .timedOut)
          take(transfer)?.abandoned()
        } else {
          next = min(next, due)
        }
      }
      let milliseconds = (next - now) / .milliseconds(1)
      return Int32(max(0, min(1000, milliseconds.rounded(.up))))
    }
  }
#endif
