// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import Synchronization

  /// A libcurl multi handle in socket mode, and the thread that sleeps on its sockets; and the
  /// transport's byte channels (the connections WebSockets run on), on the same thread.
  ///
  /// libcurl's handles are not thread-safe: every call on the multi handle and on its
  /// transfers' easy handles (and so every libcurl callback) happens under `lock`, on
  /// whichever thread holds it. The driver's thread holds it only while it has work: it
  /// sleeps in `courier_curl_loop_wait` (epoll, on the sockets libcurl asks to watch) without
  /// it. So the thread that submits a request usually takes the lock at once and has libcurl
  /// send the request right there, instead of waking the driver's thread to do it: a
  /// sequential request costs one thread wake-up fewer, and the driver wakes only when the
  /// response arrives, libcurl's timer is due, or a transfer's deadline or idle period is.
  ///
  /// The driver keeps its transfers' deadlines (``keepDeadline(of:)``): one goes in when the
  /// transfer does and out when it comes out, under the lock those take anyway, so that a
  /// request's deadline costs no lock of its own; due ones are looked at once the lock is
  /// let go.
  ///
  /// Requests from other threads (add, remove, resume) are run at once by a thread that finds
  /// the lock free, and otherwise go through `commands`, which whoever holds the lock runs
  /// (``release()``); the lock is only ever tried from them, never waited for. Whether any
  /// wait is an atomic count, so that a sequential request takes the driver's lock twice (to
  /// be sent, and when its answer comes) and the commands' lock never.
  ///
  /// Byte channels connect on a second multi handle (`CURLOPT_CONNECT_ONLY`: libcurl keeps a
  /// finished connect-only connection among its idle ones, and a multi handle with a
  /// per-host limit closes idle ones to make room, so they are kept apart from the requests');
  /// once connected, the driver watches each one's socket in the same epoll set and moves its
  /// bytes without blocking (``CurlByteChannel/Link``): no thread and no descriptor but the
  /// socket per connection. No caller's code runs under the lock (``later(_:)``).
  ///
  /// `@unchecked Sendable`: `commands` is a lock-guarded box; everything else is used under
  /// `lock` (`multi`, `sockets` and `loop` are set once).
  final class CurlDriver: @unchecked Sendable {
    private enum Command {
      case add(CurlTransfer)
      case remove(CurlTransfer)
      case resume(CurlTransfer, receiving: Bool)
      case look(CurlTransfer, at: ContinuousClock.Instant)
      case connect(CurlByteChannel)
      case turn(CurlByteChannel)
      case shutdown
    }

    private let multi: UnsafeMutableRawPointer
    /// The multi handle on which byte channels connect.
    let sockets: UnsafeMutableRawPointer
    let loop: OpaquePointer
    let lock = OwnedLock()
    private let commands = Locked<[Command]>([])
    /// How many commands wait in `commands`: changed under its lock, read without it.
    private let waiting = Atomic<Int>(0)
    /// Easy handles of finished transfers, for the next ones (freed when the thread ends).
    let handles = CurlHandles(maximum: 64)
    /// The connection caches byte channels' handles are spread over.
    let shares = CurlConnectionShares()
    // Under `lock`:
    /// The transfers in the multi handle, by easy handle.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// The deadlines (or ends of idle periods) of the transfers in the multi handle.
    private var deadlines = DeadlineSchedule<CurlTransfer>()
    private var stopping = false
    /// The connections libcurl keeps open, idle or not (see ``sizeConnectionCache()``).
    private var connectionCacheSize = 0
    /// Idle connections kept for later requests, over all hosts, until their idle time is up.
    static let keptConnections = 100
    /// When the driver's thread will wake by itself, if it is asleep.
    private var alarm: ContinuousClock.Instant?
    /// Whether the driver's thread has ended and freed the multi handle.
    private var closed = false
    /// Callers of ``sleepsIdle()``, resumed when the thread next goes to sleep with nothing
    /// to do.
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Byte channels connecting, by easy handle; open ones, by socket; how many there
    /// are from their `connect` command to their end; those to take another turn at once.
    var connecting: [UnsafeMutableRawPointer: CurlByteChannel] = [:]
    var watched: [Int32: CurlByteChannel] = [:]
    var channels = 0
    /// The sockets libcurl has made for connecting byte channels, and not closed.
    var made: [Int32: CurlByteChannel] = [:]
    var runnable: [CurlByteChannel] = []
    /// What to run once the lock is let go: the continuations of byte channels' callers.
    private var deferred: [@Sendable () -> Void] = []
    /// Where byte channels read (one at a time: under the lock).
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// A driver whose multi handle keeps up to `maximumConnectionsPerHost` connections to a
    /// host (HTTP/2 multiplexes many requests over one).
    init(maximumConnectionsPerHost: Int) throws(HTTPError) {
      try Curl.library.get()
      guard let multi = courier_curl_multi_init() else {
        throw Curl.unavailable("CurlTransport: curl_multi_init failed")
      }
      guard let sockets = courier_curl_multi_init() else {
        _ = courier_curl_multi_cleanup(multi)
        throw Curl.unavailable("CurlTransport: curl_multi_init failed")
      }
      guard let loop = courier_curl_loop_create(multi, sockets) else {
        _ = courier_curl_multi_cleanup(multi)
        _ = courier_curl_multi_cleanup(sockets)
        throw Curl.unavailable("CurlTransport: no event loop (epoll) for libcurl")
      }
      self.multi = multi
      self.sockets = sockets
      self.loop = loop
      _ = courier_curl_multi_setopt_long(multi, Curl.MultiOption.pipelining, Curl.multiplex)
      _ = courier_curl_multi_setopt_long(
        multi, Curl.MultiOption.maxHostConnections, maximumConnectionsPerHost)
      let thread = Thread { [self] in run() }
      thread.name = "Courier CurlTransport"
      thread.start()
    }

    /// Starts `transfer`: sent from this thread when the lock is free (and libcurl resolves
    /// names without blocking; see ``Curl/resolvesAsynchronously``).
    func add(_ transfer: CurlTransfer) {
      submit(.add(transfer), here: Curl.resolvesAsynchronously)
    }
    /// Stops `transfer`, closing its connection: the driver's thread is woken for it. (Not
    /// here: this runs from cancellation handlers, and working here would run other
    /// transfers' callbacks on the cancelling thread.)
    func remove(_ transfer: CurlTransfer) { submit(.remove(transfer), here: false) }
    /// Unpauses receiving once `transfer`'s reader has room, or sending once its streamed
    /// body has bytes again: the driver's thread is woken for it.
    func resume(_ transfer: CurlTransfer, receiving: Bool) {
      submit(.resume(transfer, receiving: receiving), here: false)
    }

    /// Starts connecting `socket` (its link prepared): from this thread when the lock is free,
    /// as ``add(_:)``.
    func connect(_ socket: CurlByteChannel) {
      submit(.connect(socket), here: Curl.resolvesAsynchronously)
    }
    /// Gives `socket` a turn: bytes given go out, a waiting read reads, an end is carried out.
    /// From this thread when the lock is free (`here`), else from the driver's, woken for it.
    func turn(_ socket: CurlByteChannel, here: Bool = true) { submit(.turn(socket), here: here) }

    /// Returns once the driver's thread goes to sleep with no transfer and nothing due (for
    /// tests: a timer of libcurl's left due would keep it awake, spinning).
    func sleepsIdle() async {
      await withCheckedContinuation { continuation in
        lock.lock()
        let closed = self.closed
        if !closed { idleWaiters.append(continuation) }
        lock.unlock()
        if closed { continuation.resume() } else { courier_curl_loop_wake(loop) }
      }
    }

    /// How many transfers' deadlines the driver keeps (tests).
    var deadlineCount: Int {
      lock.lock()
      defer { lock.unlock() }
      return deadlines.count
    }

    /// Ends the loop once the transfers under way have finished; the multi handle is freed.
    func shutdown() { submit(.shutdown, here: false) }

    /// With `here`, runs `command` on this thread if the lock is free; otherwise queues it,
    /// and wakes the driver's thread for it unless `here` (then the lock's holder runs it
    /// before letting go).
    private func submit(_ command: Command, here: Bool) {
      if here, lock.try() {
        work(then: command)
        return release()
      }
      commands.withLock { commands in
        commands.append(command)
        waiting.add(1, ordering: .sequentiallyConsistent)
      }
      guard here else { return courier_curl_loop_wake(loop) }
      guard lock.try() else { return }
      work()
      release()
    }

    /// Whether commands wait in `commands`. A read-modify-write rather than a load: a thread
    /// that has let the lock go and finds none is ordered before any thread that queued one
    /// and then found the lock taken (see ``release()``), as the commands' lock would order
    /// them.
    private var commandsWaiting: Bool {
      waiting.add(0, ordering: .sequentiallyConsistent).newValue > 0
    }

    /// Takes the commands that wait.
    private func takeCommands() -> [Command] {
      guard commandsWaiting else { return [] }
      return commands.withLock { commands in
        waiting.store(0, ordering: .sequentiallyConsistent)
        defer { commands.removeAll(keepingCapacity: true) }
        return commands
      }
    }

    /// Lets the lock go (waking the sleeping driver's thread if something is now due before
    /// its alarm), then takes it back and works while commands are waiting that arrived while
    /// it was held (their threads found it taken); after a few rounds it leaves them to the
    /// driver's thread, woken for them, so that a caller's thread is not kept working for
    /// others.
    private func release() {
      var rounds = 0
      while true {
        var wake = needsAlarmSooner() || !runnable.isEmpty
        unlock()
        let pending = commandsWaiting
        if pending && rounds == 4 { wake = true }
        if wake { courier_curl_loop_wake(loop) }
        guard pending, rounds < 4, lock.try() else { return }
        work()
        rounds += 1
      }
    }

    /// Lets the lock go, then runs what was deferred until then.
    private func unlock() {
      var resumes: [@Sendable () -> Void] = []
      swap(&resumes, &deferred)
      lock.unlock()
      for resume in resumes { resume() }
    }

    // MARK: - Under the lock

    /// Runs `resume` once the lock is let go.
    func later(_ resume: @escaping @Sendable () -> Void) {
      deferred.append(resume)
    }

    /// Runs `resume` now, or, on a thread that holds the lock (in a libcurl callback), once it
    /// is let go: what it resumes may run client code at once (a task that prefers the inline
    /// executor), which must never run under the lock.
    func outsideLock(_ resume: @escaping @Sendable () -> Void) {
      if lock.isHeldByCurrentThread { later(resume) } else { resume() }
    }

    /// Runs the commands (those waiting, then `command`), libcurl's timer if it is due, and
    /// finishes what libcurl is done with.
    private func work(then command: Command? = nil) {
      guard !closed else { return endAfterClosing(then: command) }
      for command in takeCommands() { handle(command) }
      if let command { handle(command) }
      // libcurl asks for "now" (0) after adding a handle or resuming one: sending starts here.
      timerFired(multi, owner: 0)
      timerFired(sockets, owner: 1)
      finishDone()
      lookAtDue()
      var again: [CurlByteChannel] = []
      swap(&again, &runnable)
      for socket in again { socket.link.pump() }
    }

    /// Runs libcurl's timer of `handle` (the loop's multi handle `owner`) while it is due.
    private func timerFired(_ handle: UnsafeMutableRawPointer, owner: Int32) {
      var rounds = 0
      while rounds < 8, courier_curl_loop_timer_fired(loop, owner) == 1 {
        var running: Int32 = 0
        _ = courier_curl_multi_socket_action(handle, Curl.socketTimeout, 0, &running)
        rounds += 1
      }
    }

    /// After the driver's thread has ended (its transport is gone), a command can only be a
    /// late one about a transfer that has ended; one that has not is failed.
    private func endAfterClosing(then last: Command? = nil) {
      for command in takeCommands() + (last.map { [$0] } ?? []) {
        if case .add(let transfer) = command {
          transfer.end(with: Curl.unavailable("CurlTransport: the transport has shut down"))
          transfer.release()
        }
        if case .connect(let socket) = command {
          socket.link.failConnecting(Curl.unavailable("CurlTransport: the transport has shut down"))
        }
      }
    }

    private func finishDone() {
      var easy: UnsafeMutableRawPointer?
      var code: Int32 = 0
      while courier_curl_multi_next_done(multi, &easy, &code) == 1 {
        if let easy, let transfer = active[easy] {
          take(transfer)?.finished(code: code)
        }
      }
      while courier_curl_multi_next_done(sockets, &easy, &code) == 1 {
        if let easy, let socket = connecting.removeValue(forKey: easy) {
          socket.link.connected(code: code)
        }
      }
    }

    /// Whether the sleeping driver's alarm is later than libcurl's timer now is.
    private func needsAlarmSooner() -> Bool {
      guard let alarm else { return false }
      return nextDue(now: .now) < alarm
    }

    private func handle(_ command: Command) {
      switch command {
      case .add(let transfer):
        guard let easy = transfer.easy else { return }
        // Stopped before it came in (cancelled, timed out): its removal came first.
        guard !transfer.removedEarly else { return transfer.release() }
        guard courier_curl_multi_add_handle(multi, easy) == 0 else {
          transfer.end(with: Curl.unavailable("CurlTransport: curl_multi_add_handle failed"))
          transfer.release()
          return
        }
        active[easy] = transfer
        keepDeadline(of: transfer, at: transfer.call.firstLook(at: .now))
        sizeConnectionCache()
      case .remove(let transfer):
        // Taking a handle out mid-transfer closes its connection at once. One not in yet is
        // not put in when its `add` comes.
        guard let taken = take(transfer) else {
          transfer.removedEarly = true
          return
        }
        taken.release(recycling: false)
      case .resume(let transfer, let receiving):
        unpause(transfer, receiving: receiving)
      case .look(let transfer, let next):
        // Unless it has come out meanwhile.
        guard let easy = transfer.easy, active[easy] === transfer else { return }
        keepDeadline(of: transfer, at: next)
      case .connect(let socket):
        channels += 1
        do throws(HTTPError) {
          let easy = try socket.link.makeHandle()
          shares.join(easy)
          guard courier_curl_multi_add_handle(sockets, easy) == 0 else {
            throw Curl.unavailable("CurlTransport: curl_multi_add_handle failed")
          }
          connecting[easy] = socket
          // Ended before it was handed over (cancelled): it is let go at once.
          socket.link.pump()
        } catch {
          socket.link.failConnecting(error)
        }
      case .turn(let socket):
        socket.link.pump()
      case .shutdown:
        stopping = true
      }
    }

    /// Unpauses one direction of `transfer` — receiving once its reader has room, sending
    /// once its streamed body has bytes — and keeps the other as it is.
    private func unpause(_ transfer: CurlTransfer, receiving: Bool) {
      guard let easy = transfer.easy, active[easy] != nil,
        receiving ? transfer.pausedForReader : transfer.pausedForBody
      else { return }
      if receiving { transfer.pausedForReader = false } else { transfer.pausedForBody = false }
      transfer.call.resumedByCaller()
      let stillPaused =
        (transfer.pausedForReader ? Curl.pauseReceiving : 0)
        | (transfer.pausedForBody ? Curl.pauseSending : 0)
      // libcurl may hand held bytes to the write callback right here; if it refuses them
      // (past the size limit), libcurl 7.88 returns at once without rearming the transfer,
      // which would then stall: it is finished here.
      let code = courier_curl_easy_pause(easy, stillPaused)
      if code != 0 { take(transfer)?.finished(code: code) }
    }

    /// Sizes libcurl's connection cache: at least ``keptConnections``, four per transfer in
    /// flight past that. Sized by libcurl alone (four per transfer), it shrank as transfers
    /// ended, and every answer closed the oldest idle connection: a caller with one request
    /// at a time to five hosts in turn made a connection (and a TLS handshake) for each.
    private func sizeConnectionCache() {
      let size = max(Self.keptConnections, 4 * active.count)
      guard size != connectionCacheSize else { return }
      connectionCacheSize = size
      _ = courier_curl_multi_setopt_long(multi, Curl.MultiOption.maxConnects, size)
    }

    /// Takes `transfer` out of the multi handle, if it is in, and forgets its deadline;
    /// returns it then.
    private func take(_ transfer: CurlTransfer) -> CurlTransfer? {
      guard let easy = transfer.easy, active.removeValue(forKey: easy) != nil else { return nil }
      _ = courier_curl_multi_remove_handle(multi, easy)
      if let deadline = transfer.deadline.take() { deadlines.remove(deadline) }
      return transfer
    }

    // MARK: - Deadlines

    /// Keeps `transfer`'s next look at `instant` (its deadline or the end of its idle
    /// period), while it is in the multi handle; `nil`: neither runs.
    private func keepDeadline(of transfer: CurlTransfer, at instant: ContinuousClock.Instant?) {
      guard let instant else { return }
      transfer.deadline = deadlines.add(transfer, at: instant)
    }

    /// Has the transfers whose look is due looked at once the lock is let go: each call ends
    /// its exchange when it is overdue (stopping the transfer through a command), or names
    /// its next look, kept unless the transfer has come out meanwhile.
    private func lookAtDue() {
      guard let earliest = deadlines.earliest else { return }
      let now = ContinuousClock.now
      guard earliest <= now else { return }
      for (_, transfer) in deadlines.popDue(now: now) {
        transfer.deadline = nil
        later { [self] in
          guard let next = transfer.call.timerFired(now: now) else { return }
          submit(.look(transfer, at: next), here: false)
        }
      }
    }

    /// When libcurl's timer is due (at most a second away), or a transfer's deadline, if
    /// sooner.
    private func nextDue(now: ContinuousClock.Instant) -> ContinuousClock.Instant {
      let timer = courier_curl_loop_timer(loop)
      let due = now + .milliseconds(timer >= 0 ? min(timer, 1000) : 1000)
      guard let deadline = deadlines.earliest else { return due }
      return min(due, deadline)
    }

    // MARK: - The driver's thread

    private func run() {
      let capacity = 256
      var ready = [Int32](repeating: 0, count: capacity)
      var flags = [Int32](repeating: 0, count: capacity)
      var owners = [Int32](repeating: 0, count: capacity)
      lock.lock()
      while true {
        work()
        // The transport is gone: the transfers under way (a body still being read) finish
        // first, as a URLSession's tasks do after `finishTasksAndInvalidate()`, and so do the
        // byte channels.
        if stopping && active.isEmpty && channels == 0 { break }
        finishDone()
        // Read after the transfers taken out above: removing one can set libcurl's timer
        // (a request waiting for a connection may start now).
        var now = ContinuousClock.now
        let due = nextDue(now: now)
        alarm = due
        var idle: [CheckedContinuation<Void, Never>] = []
        if active.isEmpty && channels == 0 && due - now >= .milliseconds(1) {
          swap(&idle, &idleWaiters)
        }
        let turnsWaiting = !runnable.isEmpty
        unlock()
        for waiter in idle { waiter.resume() }
        // Commands that came while the lock was held are run next, after a look at the
        // sockets; one that comes from now on is run by its own thread (the lock is free).
        let pending = turnsWaiting || commandsWaiting
        now = .now
        let milliseconds = pending ? 0 : ((due - now) / .milliseconds(1)).rounded(.up)
        let count = courier_curl_loop_wait(
          loop, Int32(max(0, min(1000, milliseconds))), &ready, &flags, &owners, Int32(capacity))
        lock.lock()
        alarm = nil
        for index in 0..<Int(max(0, count)) {
          var running: Int32 = 0
          switch owners[index] {
          case 0: _ = courier_curl_multi_socket_action(multi, ready[index], flags[index], &running)
          case 1:
            _ = courier_curl_multi_socket_action(sockets, ready[index], flags[index], &running)
          default:
            let socket = watched[ready[index]]
            socket?.link.pump(fromSocket: true)
          }
        }
      }
      _ = courier_curl_multi_cleanup(multi)
      _ = courier_curl_multi_cleanup(sockets)
      shares.close()
      closed = true
      handles.close()
      let idle = idleWaiters
      idleWaiters = []
      unlock()
      for waiter in idle { waiter.resume() }
      // A command whose thread found the lock taken just now is run (ended) here; later
      // ones find it free.
      if commandsWaiting, lock.try() {
        work()
        unlock()
      }
    }

    deinit {
      courier_curl_loop_destroy(loop)
    }
  }
#endif
