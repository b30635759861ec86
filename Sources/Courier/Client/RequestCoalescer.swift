import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Lets identical concurrent requests share one network call.
///
/// The first caller starts the call in a task of its own; later callers with the same key
/// join it, and every one gets the answer. A caller that is cancelled leaves at once with
/// ``HTTPError/cancelled`` while the call goes on for the others; when the last one leaves,
/// the call is cancelled. A finished or abandoned call is forgotten, so the next caller
/// starts afresh.
final class RequestCoalescer: Sendable {
  /// What makes two requests the same: method, URL, every header, and the timeout.
  struct Key: Hashable, Sendable {
    var method: String
    var url: String
    /// The headers as the request holds them. (Names keep the request's spelling: two
    /// requests whose names differ only in case are not shared, which costs a call, never
    /// a wrong answer; the client's requests spell names one way.)
    var headers: [String: String]
    var timeout: Duration?

    init(_ request: URLRequest, timeout: Duration?) {
      method = request.httpMethod ?? "GET"
      url = request.url?.absoluteString ?? ""
      headers = request.allHTTPHeaderFields ?? [:]
      self.timeout = timeout
    }

    /// Hashes the method and URL only (equality still compares everything): requests for
    /// one URL with different headers are rare, and hashing a dictionary hashes each of its
    /// fields with a hasher of its own.
    func hash(into hasher: inout Hasher) {
      hasher.combine(method)
      hasher.combine(url)
    }
  }

  private let calls = Locked<[Key: SharedCall]>([:])

  /// The response for `key`: from a call already in flight, or from `fetch`. `joined` runs
  /// when the caller joins a call already in flight, before it waits. `inline`: `fetch`
  /// never blocks once its transport has answered, so the call's task may continue on the
  /// thread that resumes it (see ``SharedCall/start(_:inline:forget:)``).
  func response(
    for key: Key, joined: () -> Void = {}, inline: Bool = false,
    fetch: @escaping @Sendable () async throws(HTTPError) -> HTTPResponse
  ) async throws(HTTPError) -> HTTPResponse {
    let (call, participant, isNew) = calls.withLock { calls in
      if let call = calls[key], let participant = call.join() {
        return (call, participant, false)
      }
      let call = SharedCall()
      calls[key] = call
      guard let participant = call.join() else {
        preconditionFailure("a new shared call refused its first caller")
      }
      return (call, participant, true)
    }
    let forget: @Sendable () -> Void = { [calls] in
      calls.withLock { if $0[key] === call { $0[key] = nil } }
    }
    if isNew { call.start(fetch, inline: inline, forget: forget) } else { joined() }
    return try await call.wait(participant, forget: forget)
  }
}

/// One network call and the callers waiting for it.
///
/// Its state is a value (``State``) under a lock; each transition returns what to do once
/// the lock is released (resume callers, cancel the call), and an impossible transition
/// traps.
private final class SharedCall: Sendable {
  typealias Continuation = CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>

  struct State: Sendable {
    private enum Participant: Sendable {
      case joined
      case waiting(Continuation)
    }

    private var participants: [UInt64: Participant] = [:]
    private var nextID: UInt64 = 0
    private var result: Result<HTTPResponse, HTTPError>?
    private var abandoned = false
    private var task: Task<Void, Never>?

    /// Adds a caller; `nil` once everyone has left (the call is being cancelled).
    mutating func join() -> UInt64? {
      guard !abandoned, result == nil else { return nil }
      defer { nextID += 1 }
      participants[nextID] = .joined
      return nextID
    }

    /// The call's task exists; returns it when everyone left before it did.
    mutating func started(_ task: Task<Void, Never>) -> Task<Void, Never>? {
      precondition(self.task == nil, "a shared call was started twice")
      self.task = task
      return abandoned ? task : nil
    }

    /// Caller `id` waits with `continuation`; returns the answer when it has no need to.
    mutating func wait(_ id: UInt64, _ continuation: Continuation) -> Result<
      HTTPResponse, HTTPError
    >? {
      if let result { return result }
      switch participants[id] {
      case nil:
        return .failure(.cancelled)  // it left (was cancelled) before it waited
      case .waiting:
        preconditionFailure("caller \(id) waits twice on one shared call")
      case .joined:
        participants[id] = .waiting(continuation)
        return nil
      }
    }

    /// Caller `id` leaves: returns its continuation to resume with ``HTTPError/cancelled``,
    /// and the call's task when it was the last (the call is abandoned).
    mutating func leave(_ id: UInt64) -> (Continuation?, abandon: Task<Void, Never>?, last: Bool) {
      guard result == nil, let participant = participants.removeValue(forKey: id) else {
        return (nil, nil, false)
      }
      var continuation: Continuation?
      if case .waiting(let waiting) = participant { continuation = waiting }
      guard participants.isEmpty else { return (continuation, nil, false) }
      abandoned = true
      return (continuation, task, true)
    }

    /// The call ended with `result`: returns the callers to resume with it.
    mutating func finish(_ result: Result<HTTPResponse, HTTPError>) -> [Continuation] {
      precondition(self.result == nil, "a shared call finished twice")
      self.result = result
      defer { participants = [:] }
      return participants.values.compactMap { participant in
        if case .waiting(let continuation) = participant { return continuation }
        return nil
      }
    }
  }

  private let state = Locked(State())

  func join() -> UInt64? {
    state.withLock { $0.join() }
  }

  /// Starts the network call; `forget` runs once it has finished.
  ///
  /// The call runs in a task of its own so that no single caller's cancellation reaches it.
  /// Started immediately, it runs on this thread until its first suspension, which saves a
  /// thread hop per request (measured: about 7% of a sequential loopback request). With
  /// `inline`, it also continues on the thread that resumes it (the transport's), up to
  /// handing the answer to its callers, instead of waking a thread of the global pool for
  /// that: a second hop saved (session 11: about 4% of a sequential request's wall time and
  /// CPU, `Benchmarks/compare.sh`).
  func start(
    _ fetch: @escaping @Sendable () async throws(HTTPError) -> HTTPResponse, inline: Bool,
    forget: @escaping @Sendable () -> Void
  ) {
    let run: @Sendable () async -> Void = {
      let result: Result<HTTPResponse, HTTPError>
      do throws(HTTPError) {
        result = .success(try await fetch())
      } catch {
        result = .failure(error)
      }
      forget()
      let waiting = self.state.withLock { $0.finish(result) }
      for continuation in waiting { continuation.resume(returning: result) }
    }
    let task = immediateTask(inline: inline, run)
    state.withLock { $0.started(task) }?.cancel()
  }

  /// Waits for the answer as caller `id`; a cancelled caller leaves at once, and the last
  /// caller to leave cancels the call and runs `forget`.
  func wait(_ id: UInt64, forget: @escaping @Sendable () -> Void) async throws(HTTPError)
    -> HTTPResponse
  {
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: Continuation) in
        if let ready = state.withLock({ $0.wait(id, continuation) }) {
          continuation.resume(returning: ready)
        }
      }
    } onCancel: {
      let (continuation, task, last) = state.withLock { $0.leave(id) }
      continuation?.resume(returning: .failure(.cancelled))
      if last {
        forget()
        task?.cancel()
      }
    }
    return try result.get()
  }
}
