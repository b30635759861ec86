import Foundation
import Testing

@testable import Courier

@Suite("Timings from URLSession's task metrics")
struct HTTPTimingsTests {
  private let start = Date(timeIntervalSinceReferenceDate: 1000)
  private func at(_ milliseconds: Double) -> Date {
    start.addingTimeInterval(milliseconds / 1000)
  }

  /// `duration` in whole milliseconds (dates carry binary fractions of a second).
  private func ms(_ duration: Duration?) -> Int? {
    duration.map { Int(($0 / .microseconds(1)).rounded() / 1000) }
  }

  @Test("a new connection: DNS, connect, TLS and the first byte, each from its own points")
  func newConnection() {
    let transaction = HTTPTimings.Transaction(
      domainLookupStart: at(1), domainLookupEnd: at(5), connectStart: at(5),
      secureConnectionStart: at(9), secureConnectionEnd: at(20), connectEnd: at(20),
      responseStart: at(42), networkProtocol: "h2", reusedConnection: false)
    let timings = HTTPTimings(
      interval: DateInterval(start: start, end: at(50)), last: transaction)
    #expect(timings.source == .platform)
    #expect(ms(timings.total) == 50)
    #expect(ms(timings.domainLookup) == 4)
    #expect(ms(timings.connect) == 15)
    #expect(ms(timings.secureConnection) == 11)
    #expect(ms(timings.firstByte) == 42)
    #expect(timings.networkProtocol == "h2")
    #expect(timings.reusedConnection == false)
  }

  @Test("a reused connection, or no transaction at all: the phases not seen are nil")
  func phasesNotSeen() {
    let reused = HTTPTimings.Transaction(
      domainLookupStart: nil, domainLookupEnd: nil, connectStart: nil,
      secureConnectionStart: nil, secureConnectionEnd: nil, connectEnd: nil,
      responseStart: at(3), networkProtocol: "http/1.1", reusedConnection: true)
    let timings = HTTPTimings(
      interval: DateInterval(start: start, end: at(4)), last: reused)
    #expect(timings.domainLookup == nil)
    #expect(timings.connect == nil)
    #expect(timings.secureConnection == nil)
    #expect(ms(timings.firstByte) == 3)
    #expect(timings.reusedConnection == true)

    let none = HTTPTimings(
      interval: DateInterval(start: start, end: at(4)), last: nil)
    #expect(ms(none.total) == 4)
    #expect(none.firstByte == nil)
    #expect(none.networkProtocol == nil)
    #expect(none.reusedConnection == nil)
  }
}
