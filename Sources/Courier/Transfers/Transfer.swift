import Foundation

/// A download or upload as an `AsyncSequence` of events: ``TransferEvent/progress(_:)`` while
/// it runs, then one ``TransferEvent/completed(_:)`` with its outcome.
///
/// Nothing is sent until the loop asks for the first event, so no event can be missed:
///
/// ```swift
/// for try await event in client.download(MovieApi.poster(path: "/heat.jpg"), to: file) {
///   switch event {
///   case .progress(let progress): print(progress.fraction ?? 0)
///   case .completed(let download): print("saved", download.url.path)
///   }
/// }
/// let download = try await client.download(MovieApi.poster(path: "/heat.jpg"), to: file)
///   .finished()   // no progress wanted
/// ```
///
/// Progress only moves forward within an attempt; when there is more to report than the
/// loop reads, it gets the latest figure rather than a backlog. (A retry by ``RetryPolicy``
/// starts again from zero.) Breaking out of the loop, or cancelling the task that runs it,
/// cancels the transfer; a download's partial file is gone by the time the loop's next line
/// runs (unless ``TransferOptions/resumeData`` keeps it).
public struct Transfer<Outcome: Sendable>: AsyncSequence, Sendable {
  /// A progress report or the outcome.
  public typealias Element = TransferEvent<Outcome>
  /// The error every failure is thrown as.
  public typealias Failure = HTTPError
  /// The work of a transfer, given where to report progress, and its run (where it leaves
  /// what must be undone at once if the loop goes away).
  typealias Work =
    @Sendable (_ progress: @escaping @Sendable (TransferProgress) -> Void, _ run: TransferRun)
    async throws(HTTPError) -> Outcome

  let work: Work

  /// Starts the transfer when the first event is asked for.
  public func makeAsyncIterator() -> Iterator {
    Iterator(loop: TransferLoop(TransferChannel(work)))
  }

  /// Runs the transfer on the calling task, without progress events, and returns its
  /// outcome.
  public func finished() async throws(HTTPError) -> Outcome {
    try await work({ _ in }, TransferRun())
  }

  /// Produces the events of one run of the transfer.
  public struct Iterator: AsyncIteratorProtocol {
    let loop: TransferLoop<Outcome>

    /// The next event, or `nil` after the outcome.
    public mutating func next() async throws(HTTPError) -> TransferEvent<Outcome>? {
      try await loop.channel.next()
    }

    /// The next event, or `nil` after the outcome.
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
      -> TransferEvent<Outcome>?
    {
      try await loop.channel.next()
    }
  }
}

/// The loop's hold on its transfer's channel, kept by the loop's iterator alone: it goes away
/// exactly when the loop does, and lets the transfer go then. (The channel itself may live a
/// moment longer, while a progress report is being handed to it.)
final class TransferLoop<Outcome: Sendable>: Sendable {
  let channel: TransferChannel<Outcome>

  init(_ channel: TransferChannel<Outcome>) {
    self.channel = channel
  }

  deinit {
    channel.letGo()
  }
}

/// Carries a running transfer's events to its loop: the latest unread progress, then the
/// outcome. The transfer runs in a task of its own, cancelled when the loop's task is
/// cancelled or the loop goes away (then, before its outcome, its run is abandoned too).
final class TransferChannel<Outcome: Sendable>: Sendable {
  private struct State {
    var work: Transfer<Outcome>.Work?
    var task: Task<Void, Never>?
    var progress: TransferProgress?
    var outcome: Result<Outcome, HTTPError>?
    var delivered = false
    var waiter: CheckedContinuation<Void, Never>?
  }

  private let state: Locked<State>
  private let run = TransferRun()

  init(_ work: @escaping Transfer<Outcome>.Work) {
    state = Locked(State(work: work))
  }

  deinit {
    state.withLock { $0.task }?.cancel()
  }

  /// The loop went away: the transfer is cancelled and, when it has not ended, its run
  /// abandoned (`break` does not wait for the cancelled work to end).
  func letGo() {
    let (task, ended) = state.withLock { ($0.task, $0.outcome != nil) }
    task?.cancel()
    if task != nil, !ended { run.abandon() }
  }

  func next() async throws(HTTPError) -> TransferEvent<Outcome>? {
    startIfNeeded()
    while true {
      let ready: Result<TransferEvent<Outcome>?, HTTPError>? = state.withLock { state in
        if let progress = state.progress {
          state.progress = nil
          return .success(.progress(progress))
        }
        guard let outcome = state.outcome else { return nil }
        if state.delivered { return .success(nil) }
        state.delivered = true
        return outcome.map { .completed($0) }
      }
      if let ready { return try ready.get() }
      await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          let waiting = state.withLock { state in
            guard state.progress == nil, state.outcome == nil else { return false }
            precondition(
              state.waiter == nil, "a transfer's events were awaited by two loops at once")
            state.waiter = continuation
            return true
          }
          if !waiting { continuation.resume() }
        }
      } onCancel: {
        // The transfer ends itself (promptly: transports answer cancellation at once), so
        // that its cleanup (a partial file) is done when the loop hears of it.
        cancelWork()
      }
    }
  }

  private func startIfNeeded() {
    state.withLock { state in
      guard let work = state.work else { return }
      state.work = nil
      state.task = Task { [weak self, run] in
        let result: Result<Outcome, HTTPError>
        do throws(HTTPError) {
          result = .success(
            try await work({ [weak self] progress in self?.report(progress) }, run))
        } catch {
          result = .failure(error)
        }
        self?.finish(result)
      }
    }
  }

  private func cancelWork() {
    state.withLock { $0.task }?.cancel()
  }

  private func report(_ progress: TransferProgress) {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard state.outcome == nil else { return nil }
      state.progress = progress
      return state.waiter.take()
    }
    waiter?.resume()
  }

  /// Records the transfer's outcome and wakes the loop.
  private func finish(_ outcome: Result<Outcome, HTTPError>) {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard state.outcome == nil else { return nil }
      state.outcome = outcome
      if case .failure = outcome { state.progress = nil }
      return state.waiter.take()
    }
    waiter?.resume()
  }
}

/// One run of a transfer, as its loop sees it: what must be undone at once, on the loop's
/// side, if the loop goes away before the outcome (`break`) — a download's partial file — so
/// that it is gone before the loop's next line runs, not once the cancelled work has wound
/// down.
final class TransferRun: Sendable {
  private let state = Locked<(undo: (@Sendable () -> Void)?, abandoned: Bool)>((nil, false))

  /// Sets what ``abandon()`` runs. When the loop went away already, runs `undo` at once and
  /// throws ``HTTPError/cancelled``.
  func onAbandon(_ undo: @escaping @Sendable () -> Void) throws(HTTPError) {
    let abandoned = state.withLock { state in
      if !state.abandoned { state.undo = undo }
      return state.abandoned
    }
    if abandoned {
      undo()
      throw .cancelled
    }
  }

  /// The loop went away before the outcome: runs what was set, once.
  func abandon() {
    let undo = state.withLock { state in
      state.abandoned = true
      defer { state.undo = nil }
      return state.undo
    }
    undo?()
  }
}
