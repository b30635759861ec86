import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Where URLSessionTransport's own sessions differ by platform: whether task metrics come,
// whether a URL cache may stay, and whether a task may wait for connectivity. (Borrowed
// sessions: BorrowedSession+Platform.swift; challenges: ChallengeAnswer+Platform.swift.)

extension URLSessionTransport {
  #if canImport(FoundationNetworking)
    /// Linux: FoundationNetworking collects no task metrics (it never calls
    /// `didFinishCollecting`), so the client's clock measures exchanges.
    static let measuresWithPlatformMetrics = false

    /// Linux: no URL cache. With one, FoundationNetworking can crash ("TaskRegistry… not in
    /// the registry") when a task is cancelled right after it starts or when its session is
    /// invalidated with tasks in flight (measured on Swift 6.3.1; 0 crashes in 60 without a
    /// cache), and its URLCache never stores an HTTP response anyway.
    static let urlCacheWorks = false

    /// Linux: FoundationNetworking has no `waitsForConnectivity`; a request made offline
    /// fails at once.
    static func setWaitsForConnectivity(_ waits: Bool, on configuration: URLSessionConfiguration) {}

    /// Linux: a field of only spaces or tabs, which is empty (RFC 9110 §5.5), set empty:
    /// FoundationNetworking hands it to libcurl as "Name: ", which libcurl reads as "remove
    /// this field", so it was never sent (an empty value it sends as "Name;").
    static func blankValuesEmptied(_ head: inout URLRequest) {
      guard let fields = head.allHTTPHeaderFields else { return }
      for (name, value) in fields
      where !value.isEmpty && value.utf8.allSatisfy({ $0 == 32 || $0 == 9 }) {
        head.setValue("", forHTTPHeaderField: name)
      }
    }

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
    /// completes, as a rule (`didCompleteWithError` is "the last message related to a
    /// specific task", NSURLSession.h); metrics that come later are dropped, and the client's
    /// clock measures that exchange.
    static let measuresWithPlatformMetrics = true

    /// Apple platforms: URLCache works as Apple documents it ("Accessing cached data").
    static let urlCacheWorks = true

    /// Apple platforms: URLSession sends a field of only spaces or tabs as it is.
    static func blankValuesEmptied(_ head: inout URLRequest) {}

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
