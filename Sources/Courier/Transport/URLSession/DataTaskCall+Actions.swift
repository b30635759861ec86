import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a ``DataTaskCall``'s transitions decide, done once the lock is released: answering
/// the caller, writing or ending the body, cancelling the task.
extension DataTaskCall {
  /// Does what a transition decided, outside the lock; a transition that ended the call
  /// runs `onEnd`.
  func run(_ action: Action) {
    switch action {
    case .none:
      return
    case .startTask(let task):
      task.resume()
      return
    case .answer(let continuation, let result):
      continuation.resume(returning: result)
      if case .success = result, !isFinished { return }  // the body streams on
    case .answerAndCancel(let continuation, let error, let task):
      continuation.resume(returning: .failure(error))
      Self.cancel(task)
    case .write(let writer, let data):
      do throws(HTTPError) {
        try writer.write(data)
      } catch {
        end(with: error)
      }
      return
    case .endBody(let writer, let error):
      if let error { writer.fail(error) } else { writer.finish() }
    case .endBodyAndCancel(let writer, let error, let task):
      writer.fail(error)
      Self.cancel(task)
    }
    reportTimings()
    onEnd.withLock { hook in
      defer { hook = nil }
      return hook
    }?()
  }

  /// URLSession measured the task (Apple platforms, before it completes).
  func collected(_ metrics: URLSessionTaskMetrics) {
    guard timings != nil else { return }
    let measured = HTTPTimings(metrics)
    state.withLock { $0.measured = measured }
  }

  /// Reports the exchange's timings once, as it ends: the platform's if it measured the
  /// task by now, otherwise Courier's clock from the task's start (the first byte known only
  /// when the head came before the body).
  private func reportTimings() {
    guard let timings else { return }
    let now = ContinuousClock.now
    let report = state.withLock { state -> HTTPTimings? in
      guard !state.timingsReported, let start = state.startedAt else { return nil }
      state.timingsReported = true
      return state.measured
        ?? HTTPTimings(
          source: .courier, total: now - start, firstByte: state.headAt.map { $0 - start },
          redirects: state.redirects)
    }
    if let report { timings(report) }
  }

  private var isFinished: Bool {
    state.withLock { if case .finished = $0.phase { true } else { false } }
  }

  /// URLSessionTask.cancel() takes URLSession's internal locks; never do that on the thread
  /// that is cancelling a Swift task, firing a timer or holding a call's lock.
  private static func cancel(_ task: URLSessionTask) {
    DispatchQueue.global().async { task.cancel() }
  }
}
