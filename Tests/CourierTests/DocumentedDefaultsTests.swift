import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Every default the documentation states as a number or a setting, read from the values a
/// user gets: a change to one fails here, next to the sentence it would make false.
@Suite("The defaults the documentation states")
struct DocumentedDefaultsTests {
  @Test("HTTPClient.Configuration: 60 s timeout and idle timeout, 16 MiB, no limits, sharing on")
  func configuration() {
    let configuration = HTTPClient.Configuration()
    #expect(configuration.timeout == .seconds(60))
    #expect(configuration.idleTimeout == .seconds(60))
    #expect(configuration.maximumResponseBytes == 16 * 1024 * 1024)
    #expect(configuration.maximumConcurrentRequests == nil)
    #expect(configuration.maximumConcurrentRequestsPerHost == nil)
    #expect(configuration.coalescesRequests)
    #expect(configuration.acceptableStatusCodes == .success)
    #expect(configuration.redirects == .follow(maximum: 10))
    #expect(configuration.middleware.isEmpty)
    #expect(configuration.observer == nil)
    #expect(configuration.cache == nil)
    #expect(configuration.cookies == nil)
  }

  @Test("TransferOptions: no timeout, the client's idle timeout, 1 MiB buffer, 3 resumes")
  func transferOptions() {
    let options = TransferOptions()
    #expect(options.timeout == nil)
    #expect(options.idleTimeout == nil)
    #expect(options.maximumBytes == nil)
    #expect(options.bufferSize == 1024 * 1024)
    #expect(options.maximumResumeAttempts == 3)
    #expect(options.resumeData == nil)
  }

  @Test("RetryPolicy: 3 attempts, 0.5 s doubling to 30 s, Retry-After up to 60 s, full jitter")
  func retryPolicy() {
    let policy = RetryPolicy()
    #expect(policy.maximumAttempts == 3)
    #expect(policy.baseDelay == .milliseconds(500))
    #expect(policy.maximumDelay == .seconds(30))
    #expect(policy.maximumRetryAfter == .seconds(60))
    #expect(policy.statuses == [408, 429, 500, 502, 503, 504])
    #expect(policy.methods == [.get, .head, .put, .delete, .options])
    #expect(policy.jitter == .full)
    #expect(!policy.retriesOffline)
  }

  @Test("WebSocket.Settings: 1 MiB messages, a ping every 30 s, 5 s to close")
  func webSocketSettings() {
    let settings = WebSocket.Settings()
    #expect(settings.maximumMessageSize == 1024 * 1024)
    #expect(settings.pingInterval == .seconds(30))
    #expect(settings.closeTimeout == .seconds(5))
  }

  @Test("ReconnectionPolicy reconnects after 3 s, with no limit; LoggingMiddleware cuts at 1 KiB")
  func reconnectionAndLogging() {
    let policy = ReconnectionPolicy()
    #expect(policy.reconnects)
    #expect(policy.delay == .seconds(3))
    #expect(policy.maximumConsecutiveFailures == nil)
    #expect(LoggingMiddleware { _ in }.bodyLimit == 1024)
  }

  @Test("HTTPCache: 10 MiB in memory alone; 4 MiB in memory and 100 MiB on disk with a directory")
  func cache() throws {
    #expect(HTTPCache().memoryCapacity == 10 * 1024 * 1024)
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("defaults-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let onDisk = try HTTPCache(directory: directory)
    #expect(onDisk.memoryCapacity == 4 * 1024 * 1024)
    #expect(onDisk.diskCapacity == 100 * 1024 * 1024)
  }

  @Test("URLSessionTransport's session: 32 connections per host, no cookies, no URL cache")
  func sessionConfiguration() {
    let configuration = URLSessionTransport.defaultSessionConfiguration()
    #expect(configuration.httpMaximumConnectionsPerHost == 32)
    #expect(configuration.httpCookieAcceptPolicy == .never)
    #expect(!configuration.httpShouldSetCookies)
    #expect(configuration.urlCache == nil)
  }

  #if canImport(FoundationNetworking)
    @Test("CurlTransport.Configuration: 32 connections per host")
    func curlConfiguration() {
      #expect(CurlTransport.Configuration().maximumConnectionsPerHost == 32)
    }
  #endif
}
