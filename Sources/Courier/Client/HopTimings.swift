import Foundation

/// The timings of one exchange (one hop of the redirect loop), as the client reports them:
/// the transport's own figures when it measures the exchange (libcurl's, or URLSession's task
/// metrics on Apple platforms, handed over before the exchange ends), otherwise the client's
/// clock around the transport — the total, and the first byte when the body is read as it
/// comes. Any transport's exchanges are measured, one of your own included. Reported once,
/// when the body has been read or let go, or the exchange failed.
final class HopTimings: Sendable {
  private struct State {
    var measured: HTTPTimings?
    var head: ContinuousClock.Instant?
    var reported = false
  }

  private let start = ContinuousClock.now
  private let redirects: Int
  private let report: @Sendable (HTTPTimings) -> Void
  private let state = Locked(State())

  /// Timings of an exchange that starts now, after `redirects` redirects, for `report`.
  init(redirects: Int, report: @escaping @Sendable (HTTPTimings) -> Void) {
    self.redirects = redirects
    self.report = report
  }

  /// What the transport measured (``TransportOptions/timings``).
  func measured(_ timings: HTTPTimings) {
    state.withLock { $0.measured = timings }
  }

  /// The head of a body read as it comes has arrived: the first byte, for the client's clock.
  func headArrived() {
    let now = ContinuousClock.now
    state.withLock { $0.head = now }
  }

  /// The exchange has ended: reports its timings, the first time only.
  func ended() {
    let now = ContinuousClock.now
    let timings = state.withLock { state -> HTTPTimings? in
      guard !state.reported else { return nil }
      state.reported = true
      return state.measured
        ?? HTTPTimings(
          source: .courier, total: now - start, firstByte: state.head.map { $0 - start })
    }
    guard var timings else { return }
    timings.redirects = redirects
    report(timings)
  }
}

extension HopTimings {
  /// What one hop after `redirects` redirects is sent with, and what measures it: `options`
  /// unchanged, and nothing, when they ask for no timings.
  static func start(_ options: TransportOptions, redirects: Int) -> (
    options: TransportOptions, timings: HopTimings?
  ) {
    guard let report = options.timings else { return (options, nil) }
    let timings = HopTimings(redirects: redirects, report: report)
    var hop = options
    hop.timings = { timings.measured($0) }
    return (hop, timings)
  }

  /// The hop was answered with `response`: measured until its body has been read or let go
  /// (at once for a `collected` one, which came with its head).
  func answered(_ response: TransportResponse, collected: Bool) {
    if !collected { headArrived() }
    response.body.whenRead { _ in self.ended() }
  }
}
