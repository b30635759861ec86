import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Finds the file a download task is writing, so that it can be deleted when the download
/// fails or is cancelled.
///
/// On Linux, FoundationNetworking writes a download to `NSTemporaryDirectory()/UUID.tmp`
/// and hands its name over only on success; after a failure or a cancellation the file
/// stays on disk for good, and nothing public names it. The name is kept in the task's
/// protocol object, which reflection can read; the protocol object is dropped when the task
/// completes, so the name is read as soon as the transfer has started: on the task's own
/// serial work queue, in a block queued right after `resume()`, which runs after the block
/// that creates the file and before any network event can complete the task. On Apple
/// platforms URLSession deletes its own files, and this finds nothing.
enum LeftoverDownload {
  /// Calls `found` with the name of the file `task` writes, once its transfer has started
  /// (right after `resume()`); with `nil` if it cannot be learnt.
  static func whenStarted(_ task: URLSessionTask, _ found: @escaping @Sendable (URL?) -> Void) {
    #if canImport(FoundationNetworking)
      guard let queue = child(named: "workQueue", of: task) as? DispatchQueue else {
        return found(nil)
      }
      queue.async { found(url(of: task)) }
    #else
      found(nil)
    #endif
  }

  private static func url(of task: URLSessionTask) -> URL? {
    #if canImport(FoundationNetworking)
      guard let loader = child(named: "_protocolStorage", of: task).flatMap(firstChild) else {
        return nil
      }
      return child(named: "$__lazy_storage_$_tempFileURL", of: loader).flatMap { value in
        value as? URL ?? (value as? URL?) ?? nil
      }
    #else
      return nil
    #endif
  }

  /// The stored property `name` of `object`, looked for in its class and superclasses.
  private static func child(named name: String, of object: Any) -> Any? {
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
      if let value = current.children.first(where: { $0.label == name })?.value { return value }
      mirror = current.superclassMirror
    }
    return nil
  }

  /// The payload of an enum case, such as the protocol in `.existing(protocol)`.
  private static func firstChild(of value: Any) -> Any? {
    Mirror(reflecting: value).children.first?.value
  }
}
