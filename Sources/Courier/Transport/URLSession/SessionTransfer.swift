import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A URLSession task as the transfer of an exchange: resumed to start, cancelled on another
/// queue to stop, and, when the exchange ends, its spooled upload file's name removed.
struct SessionTransfer: ExchangeTransfer {
  /// A request body sent from a file, and the spool that holds it when it is Courier's.
  typealias Upload = (url: URL, spool: SpoolFile?)

  let task: URLSessionTask
  let call: DataTaskCall
  let upload: Upload?
  /// Whether Courier sees the task's bytes one chunk at a time (a delegate-driven data
  /// task); otherwise the idle timeout watches the task's byte counters.
  let seesBytes: Bool

  func begin() {
    task.resume()
  }

  /// URLSessionTask.cancel() takes URLSession's internal locks; never done on the thread
  /// that is cancelling a Swift task, firing a timer or holding a lock.
  func stop() {
    let task = self.task
    DispatchQueue.global().async { task.cancel() }
  }

  /// A task never resumed reports its cancellation at once, to nobody (its call is over).
  func discard() {
    task.cancel()
  }

  var bytesMoved: Int64? {
    seesBytes ? nil : task.countOfBytesReceived &+ task.countOfBytesSent
  }

  func exchangeEnded() {
    upload?.spool?.removeName()
  }
}
