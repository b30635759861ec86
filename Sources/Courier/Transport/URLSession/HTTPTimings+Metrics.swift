import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPTimings {
  /// The points in time of one transaction of a task's metrics (its last, the one that
  /// answered): a plain value, so that the arithmetic is tested where URLSession collects no
  /// metrics (Linux).
  struct Transaction: Equatable {
    var domainLookupStart: Date?
    var domainLookupEnd: Date?
    var connectStart: Date?
    var secureConnectionStart: Date?
    var secureConnectionEnd: Date?
    var connectEnd: Date?
    var responseStart: Date?
    var networkProtocol: String?
    var reusedConnection: Bool
  }

  /// The timings URLSession measured for a task (Apple platforms).
  init(_ metrics: URLSessionTaskMetrics) {
    let transaction = metrics.transactionMetrics.last.map { last in
      Transaction(
        domainLookupStart: last.domainLookupStartDate, domainLookupEnd: last.domainLookupEndDate,
        connectStart: last.connectStartDate,
        secureConnectionStart: last.secureConnectionStartDate,
        secureConnectionEnd: last.secureConnectionEndDate, connectEnd: last.connectEndDate,
        responseStart: last.responseStartDate, networkProtocol: last.networkProtocolName,
        reusedConnection: last.isReusedConnection)
    }
    self.init(interval: metrics.taskInterval, last: transaction)
  }

  /// Timings from a task's interval and its last transaction's points in time.
  init(interval: DateInterval, last: Transaction?) {
    func between(_ start: Date?, _ end: Date?) -> Duration? {
      guard let start, let end, end >= start else { return nil }
      return .seconds(end.timeIntervalSince(start))
    }
    self.init(
      source: .platform, total: .seconds(interval.duration),
      domainLookup: between(last?.domainLookupStart, last?.domainLookupEnd),
      connect: between(last?.connectStart, last?.connectEnd),
      secureConnection: between(last?.secureConnectionStart, last?.secureConnectionEnd),
      firstByte: between(interval.start, last?.responseStart),
      networkProtocol: last?.networkProtocol, reusedConnection: last?.reusedConnection)
  }
}
