import Courier
import Foundation

/// A transport of the kind clients given none get in this process (`COURIER_TRANSPORT`), made
/// for one test alone: clients given none share one process-wide transport, whose connection
/// cache the tests running alongside fill and trim, so a test that counts its server's
/// connections gives its client a transport of its own.
public func ownTransport() -> any HTTPTransport {
  #if canImport(FoundationNetworking)
    let chosen = ProcessInfo.processInfo.environment["COURIER_TRANSPORT"]?
      .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    if chosen == "urlsession" || (chosen != "curl" && !CurlTransport.isAvailable) {
      return URLSessionTransport()
    }
    return CurlTransport()
  #else
    return URLSessionTransport()
  #endif
}

/// Whether `client` sends through ``CurlTransport`` (Linux only): for the tests whose answer
/// differs by transport.
public func sendsOverCurl(_ client: HTTPClient) -> Bool {
  #if canImport(FoundationNetworking)
    client.transport is CurlTransport
  #else
    false
  #endif
}
