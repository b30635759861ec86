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

  /// The calls in flight, by key, and each call's state: one lock for all of them, so that a
  /// caller takes it three times — to join (or start) a call, to wait for it, and, for the
  /// call, to hand its answer over and be forgotten.
  private let calls = Locked<[Key: SharedCall]>([:])

  /// The response for `key`: from a call already in flight, or from `fetch`. `joined` runs
  /// when the caller joins a call already in flight, before it waits. `inline`: `fetch`
  /// never blocks once its transport has answered, so the call's task may continue on the
  /// thread that resumes it (see ``start(_:for:inline:fetch:)``).
  ///
  /// A caller that is cancelled leaves at once with ``HTTPError/cancelled``; the last caller
  /// to leave cancels the call and has it forgotten.
  func response(
    for key: Key, joined: () -> Void = {}, inline: Bool = false,
    fetch: @escaping @Sendable () async throws(HTTPError) -> HTTPResponse
  ) async throws(HTTPError) -> HTTPResponse {
    let (call, id, isNew) = calls.withLock { calls in
      if let call = calls[key], let id = call.state.join() {
        return (call, id, false)
      }
      let call = SharedCall()
      calls[key] = call
      guard let id = call.state.join() else {
        preconditionFailure("a new shared call refused its first caller")
      }
      return (call, id, true)
    }
    // Started here, the call's task has run up to its first suspension (or to its end) when
    // it is recorded below, together with this caller's wait.
    let task = isNew ? start(call, for: key, inline: inline, fetch: fetch) : nil
    if !isNew { joined() }
    let calls = self.calls
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: SharedCall.Continuation) in
        let (ready, abandoned) = calls.withLock { _ in
          let abandoned = task.flatMap { call.state.started($0) }
          return (call.state.wait(id, continuation), abandoned)
        }
        abandoned?.cancel()
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      let (continuation, abandoned) = calls.withLock { calls in
        let (continuation, abandoned, last) = call.state.leave(id)
        if last, calls[key] === call { calls[key] = nil }
        return (continuation, abandoned)
      }
      continuation?.resume(returning: .failure(.cancelled))
      abandoned?.cancel()
    }
    return try result.get()
  }

  /// Starts `call`'s network work, `fetch`, in a task of its own, so that no single caller's
  /// cancellation reaches it; once it has its answer, the call is forgotten (the next caller
  /// starts afresh) and its callers are resumed.
  ///
  /// Started immediately, the task runs on this thread until its first suspension, which
  /// saves a thread hop per request (measured: about 7% of a sequential loopback request).
  /// With `inline`, it also continues on the thread that resumes it (the transport's), up to
  /// handing the answer to its callers, instead of waking a thread of the global pool for
  /// that: a second hop saved (session 11: about 4% of a sequential request's wall time and
  /// CPU, `Benchmarks/compare.sh`).
  private func start(
    _ call: SharedCall, for key: Key, inline: Bool,
    fetch: @escaping @Sendable () async throws(HTTPError) -> HTTPResponse
  ) -> Task<Void, Never> {
    let calls = self.calls
    return immediateTask(inline: inline) {
      let result: Result<HTTPResponse, HTTPError>
      do throws(HTTPError) {
        result = .success(try await fetch())
      } catch {
        result = .failure(error)
      }
      let waiting = calls.withLock { calls in
        if calls[key] === call { calls[key] = nil }
        return call.state.finish(result)
      }
      for continuation in waiting { continuation.resume(returning: result) }
    }
  }
}

/// One network call and the callers waiting for it.
///
/// Its state is a value (``State``) under its coalescer's lock; each transition returns what
/// to do once the lock is released (resume callers, cancel the call), and an impossible
/// transition traps.
///
/// `@unchecked Sendable`: `state` is only reached inside the `withLock` of the coalescer's
/// `calls`, which holds the lock for the whole access.
private final class SharedCall: @unchecked Sendable {
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

  /// Reached only under the lock of the coalescer that made the call.
  var state = State()
}
