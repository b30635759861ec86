import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("What requests carry to URLSession beyond their head")
struct PlatformRequestTests {
  @Test("network access options reach the URLRequest; without them every network is allowed")
  func networkAccess() throws {
    let client = makeClient()
    let open = try client.urlRequest(for: Request<Data>(path: "x"))
    #expect(open.allowsCellularAccess)
    let limited = try client.urlRequest(
      for: Request<Data>(
        path: "x", options: [.noCellular, .noExpensiveNetwork, .noConstrainedNetwork]))
    #expect(!limited.allowsCellularAccess)
    // Expensive and constrained networks are Apple's notions (FoundationNetworking has
    // neither property); there they are refused too.
    #if !canImport(FoundationNetworking)
      #expect(open.allowsExpensiveNetworkAccess && open.allowsConstrainedNetworkAccess)
      #expect(!limited.allowsExpensiveNetworkAccess && !limited.allowsConstrainedNetworkAccess)
    #endif
  }

  // FoundationNetworking has no such setting; this holds on Apple platforms.
  #if !canImport(FoundationNetworking)
    @Test("waiting for connectivity is asked of the session (Apple platforms); off by default")
    func waitsForConnectivity() {
      #expect(
        URLSessionTransport.defaultSessionConfiguration(waitsForConnectivity: true)
          .waitsForConnectivity)
      #expect(!URLSessionTransport.defaultSessionConfiguration().waitsForConnectivity)
    }
  #endif

  @Test("a Swift task's priority becomes its URLSession task's")
  func priority() {
    let cases: [(TaskPriority, Float)] = [
      (.high, URLSessionTask.highPriority), (.userInitiated, URLSessionTask.highPriority),
      (.medium, URLSessionTask.defaultPriority),
      (.low, URLSessionTask.lowPriority), (.utility, URLSessionTask.lowPriority),
      (.background, URLSessionTask.lowPriority),
    ]
    for (task, expected) in cases {
      #expect(URLSessionTransport.priority(for: task) == expected, "\(task)")
    }
  }
}
