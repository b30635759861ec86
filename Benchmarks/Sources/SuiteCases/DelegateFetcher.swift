import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The fair URLSession baseline for Courier's guarantees: a delegate-driven data task whose
/// body arrives chunk by chunk (`didReceive data`), checked against a size limit as it comes,
/// and handed to the caller at `didCompleteWithError` through a checked continuation — what
/// a user would write to get streaming and limits from URLSession without a library.
final class DelegateFetcher: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // @unchecked: `calls` is only touched under `lock`; `session` is set once in init.
  private struct Call {
    var data = Data()
    var continuation: CheckedContinuation<Data, any Error>
  }

  private let lock = NSLock()
  private var calls: [Int: Call] = [:]
  private var session: URLSession!
  private let maximumBytes = 10 << 20

  /// A fetcher on a session of `configuration` with this object as its delegate.
  init(configuration: URLSessionConfiguration) {
    super.init()
    session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
  }

  /// GETs `url` and returns its body; a status other than 200 throws.
  func data(from url: URL) async throws -> Data {
    try await withCheckedThrowingContinuation { continuation in
      let task = session.dataTask(with: URLRequest(url: url))
      lock.withLock { calls[task.taskIdentifier] = Call(continuation: continuation) }
      task.resume()
    }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    let ok = (response as? HTTPURLResponse)?.statusCode == 200
    completionHandler(ok ? .allow : .cancel)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let tooLarge = lock.withLock { () -> Bool in
      calls[dataTask.taskIdentifier]?.data.append(data)
      return (calls[dataTask.taskIdentifier]?.data.count ?? 0) > maximumBytes
    }
    if tooLarge { dataTask.cancel() }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    guard let call = lock.withLock({ calls.removeValue(forKey: task.taskIdentifier) }) else {
      return
    }
    if let error {
      call.continuation.resume(throwing: error)
    } else {
      call.continuation.resume(returning: call.data)
    }
  }
}
