import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The behaviour every `HTTPTransport` owes `HTTPClient`, as checks you run against your
/// own transport over a ``LoopbackServer``, one test each:
///
/// ```swift
/// @Test(arguments: TransportConformance.checks)
/// func conforms(_ check: TransportConformance.Check) async throws {
///   try await check.run(on: RecordingTransport(base: URLSessionTransport()))
/// }
/// ```
///
/// Each check starts its own servers, so they run in parallel, and throws a
/// ``ConformanceFailure`` saying what the transport did instead. No check depends on timing
/// to pass: waits end on what they wait for, and a wait that never ends is given up after
/// 45 seconds as a failure.
public enum TransportConformance {
  /// One behaviour of the contract.
  public struct Check: Sendable, CustomStringConvertible {
    /// What the check shows, as a sentence.
    public let name: String
    let body: @Sendable (Lab) async throws -> Void

    /// The name.
    public var description: String { name }

    /// Runs the check against `transport`.
    ///
    /// - Throws: ``ConformanceFailure`` when the transport does not behave as the contract
    ///   says, or the loopback server's error when a server cannot start.
    public func run(on transport: any HTTPTransport) async throws {
      try await body(Lab(transport: transport, network: nil))
    }

    /// Runs the check against `stub`, its servers answered by the stub in memory (see
    /// ``StubTransport/serving(_:)``): the stub's own conformance, or that of a stub you
    /// configured.
    ///
    /// ```swift
    /// @Test(arguments: TransportConformance.checks)
    /// func stubConforms(_ check: TransportConformance.Check) async throws {
    ///   try await check.run(inMemoryOn: StubTransport())
    /// }
    /// ```
    public func run(inMemoryOn stub: StubTransport) async throws {
      let network = MemoryNetwork()
      try await body(Lab(transport: stub.serving(network), network: network))
    }
  }

  /// Where a check runs: the transport under test, and the servers it talks to, over
  /// sockets or, for a stub, in memory.
  struct Lab: Sendable {
    let transport: any HTTPTransport
    let network: MemoryNetwork?

    /// A server answering with `handler`, reachable by `transport`; with
    /// `streamsRequestBodies` (sockets only), handlers read bodies as they arrive.
    func server(
      streamsRequestBodies: Bool = false, _ handler: @escaping LoopbackServer.Handler
    ) throws -> LoopbackServer {
      guard let network else {
        return try LoopbackServer(streamsRequestBodies: streamsRequestBodies, handler: handler)
      }
      return LoopbackServer(network: network, handler: handler)
    }
  }

  /// Every check.
  public static var checks: [Check] {
    exchangeChecks + limitChecks + cancellationChecks + redirectChecks + oneTimeBodyChecks
  }

  /// The checks for a transport that sends a streamed request body as it is produced
  /// (`CurlTransport`; `URLSessionTransport` on Apple platforms), over sockets: the
  /// body leaves before it has ended, the answer can be read meanwhile, and a producer is
  /// held back by a server that does not read.
  public static var streamedBodyChecks: [Check] {
    liveBodyChecks
  }
}

/// What a transport did that the contract does not allow.
public struct ConformanceFailure: Error, CustomStringConvertible {
  /// What was expected and what happened.
  public let description: String

  init(_ description: String) {
    self.description = description
  }
}

// MARK: - Helpers for the checks

extension TransportConformance {
  /// Fails with `message` unless `condition` holds.
  static func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ConformanceFailure(message()) }
  }

  /// The error `operation` throws; fails if it throws none.
  static func error<T>(
    _ what: String, _ operation: () async throws(HTTPError) -> T
  ) async throws -> HTTPError {
    do throws(HTTPError) {
      _ = try await operation()
    } catch {
      return error
    }
    throw ConformanceFailure("\(what) did not fail")
  }

  /// Fails unless `error` is `expected` (compared by case and description).
  static func expect(_ error: HTTPError?, is expected: HTTPError) throws {
    guard let error, "\(error)" == "\(expected)" else {
      throw ConformanceFailure("expected \(expected), got \(String(describing: error))")
    }
  }

  /// The error `operation` ends with, or `nil` when it succeeds.
  static func failure<T>(_ operation: () async throws(HTTPError) -> T) async -> HTTPError? {
    do throws(HTTPError) {
      _ = try await operation()
      return nil
    } catch {
      return error
    }
  }

  /// Waits for `operation`, failing the check if it has not finished after 45 seconds: a hang
  /// detector, not a timing rule (on a loaded 2-core machine a few round trips have taken
  /// over 20).
  static func within<T: Sendable>(
    _ what: String, _ operation: @escaping @Sendable () async -> T
  ) async throws -> T {
    let race = FirstOutcome<T?>()
    let work = Task { race.finish(await operation()) }
    let watchdog = Task {
      try? await Task.sleep(for: .seconds(45))
      race.finish(nil)
    }
    defer { watchdog.cancel() }
    guard let value = await race.value() else {
      work.cancel()
      throw ConformanceFailure("\(what) never happened (gave up after 45 seconds)")
    }
    return value
  }

  /// A GET of `path` on `server`.
  static func get(_ server: LoopbackServer, _ path: String, headers: HTTPHeaders = [:])
    -> TransportRequest
  {
    var head = URLRequest(url: server.baseURL.appendingPathComponent(path))
    for field in headers { head.setValue(field.value, forHTTPHeaderField: field.name) }
    return TransportRequest(head: head)
  }

  /// Bytes `0, 1, … 250, 0, 1 …`, `count` of them.
  static func pattern(_ count: Int) -> Data {
    var data = Data(count: count)
    data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
      for index in 0..<count { buffer[index] = UInt8(index % 251) }
    }
    return data
  }
}
