import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Where URLSessionTransport's own sessions differ by platform: how downloads report their
// bytes, and whether a URL cache may stay. (Borrowed sessions: BorrowedSession+Platform.swift;
// challenges: ChallengeAnswer+Platform.swift.)

extension DownloadTask.Driver {
  #if canImport(FoundationNetworking)
    /// Linux: downloads stream through data tasks and Courier writes the file, as resumable
    /// downloads do everywhere. FoundationNetworking's download tasks leave a failed
    /// transfer's file behind under a name nothing public reveals, and report no progress
    /// to a completion handler. (FoundationNetworking queues each chunk for the delegate
    /// with its bytes attached: with both cores busy, a 200 MB download's memory grew by up
    /// to 96 MiB. ``CurlTransport``, Linux's default, has real back-pressure.)
    static let platform = DownloadTask.Driver.streamed
  #else
    /// Apple platforms: delegate-driven download tasks. A completion-handler download task
    /// gets no `didWriteData` (Apple's URLSession documentation: "Downloading files from
    /// websites"), so it would report no progress and check the size limit only once the
    /// whole file is on disk; the delegate's callbacks carry counts, not bytes.
    static let platform = DownloadTask.Driver.sessionDelegate
  #endif
}

extension URLSessionTransport {
  #if canImport(FoundationNetworking)
    /// Linux: FoundationNetworking collects no task metrics (it never calls
    /// `didFinishCollecting`), so timings come from Courier's clock.
    static let measuresWithPlatformMetrics = false

    /// Linux: no URL cache. With one, FoundationNetworking can crash ("TaskRegistry… not in
    /// the registry") when a task is cancelled right after it starts or when its session is
    /// invalidated with tasks in flight (measured on Swift 6.3.1; 0 crashes in 60 without a
    /// cache), and its URLCache never stores an HTTP response anyway.
    static let urlCacheWorks = false

    /// Linux: FoundationNetworking has no `waitsForConnectivity`; a request made offline
    /// fails at once.
    static func setWaitsForConnectivity(_ waits: Bool, on configuration: URLSessionConfiguration) {}

    /// `configuration`, or a copy of it without its URL cache.
    static func supported(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
      guard configuration.urlCache != nil,
        let copy = configuration.copy() as? URLSessionConfiguration
      else { return configuration }
      copy.urlCache = nil
      return copy
    }
  #else
    /// Apple platforms: URLSession delivers `URLSessionTaskMetrics` before each task
    /// completes (Apple's documentation of `urlSession(_:task:didFinishCollecting:)`).
    static let measuresWithPlatformMetrics = true

    /// Apple platforms: URLCache works as Apple documents it ("Accessing cached data").
    static let urlCacheWorks = true

    /// Apple platforms: `URLSessionConfiguration.waitsForConnectivity`.
    static func setWaitsForConnectivity(_ waits: Bool, on configuration: URLSessionConfiguration) {
      configuration.waitsForConnectivity = waits
    }

    /// `configuration` as it is.
    static func supported(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
      configuration
    }
  #endif
}
