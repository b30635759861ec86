import Foundation
import Testing

@testable import Courier

/// The per-request state machine every transport shares, as a value: each event in each
/// state, compared by the action it returns and the state it leaves. Plain values stand for
/// the caller ("caller"), the transfer (7) and the body's writer ("body").
@Suite("RequestMachine: every event in every state")
struct RequestMachineTests {
  typealias Machine = RequestMachine<String, Int, String>

  enum StartState: String, CaseIterable, CustomTestStringConvertible {
    case idle, endedBeforeStart, waiting, streaming, finished
    var testDescription: String { rawValue }

    var machine: Machine {
      var machine = Machine()
      switch self {
      case .idle: break
      case .endedBeforeStart: _ = machine.ended(with: .cancelled)
      case .waiting: _ = machine.start("caller", 7)
      case .streaming:
        _ = machine.start("caller", 7)
        _ = machine.receivedHead(RequestMachineTests.head, writer: "body")
      case .finished:
        _ = machine.start("caller", 7)
        _ = machine.completed(.failure(.timedOut))
      }
      return machine
    }
  }

  enum Event: String, CaseIterable, CustomTestStringConvertible {
    case refusesStart, start, head, completedOK, completedFailing, responseEndedFirst, ended
    var testDescription: String { rawValue }

    /// Feeds the event; `nil` for `refusesStart` answering "go on".
    func feed(_ machine: inout Machine) -> String {
      switch self {
      case .refusesStart: machine.refusesStart("caller2").map(describe) ?? "go on"
      case .start: describe(machine.start("caller2", 8))
      case .head: describe(machine.receivedHead(RequestMachineTests.head, writer: "body2"))
      case .completedOK: describe(machine.completed(.success(RequestMachineTests.head)))
      case .completedFailing:
        describe(machine.completed(.failure(.transport(URLError(.networkConnectionLost)))))
      case .responseEndedFirst: describe(machine.responseEndedFirst())
      case .ended: describe(machine.ended(with: .timedOut))
      }
    }
  }

  static let head = TransportResponse(HTTPResponse(status: 200))

  static func describe(_ action: Machine.Action) -> String {
    func result(_ result: Result<TransportResponse, HTTPError>) -> String {
      switch result {
      case .success(let response): "\(response.head.status)"
      case .failure(let error): error.kindName
      }
    }
    return switch action {
    case .none: "none"
    case .start(let transfer): "start \(transfer)"
    case .refuse(let waiter, let error, let transfer):
      "refuse \(waiter) \(error.kindName) \(transfer)"
    case .answer(let waiter, let answer): "answer \(waiter) \(result(answer))"
    case .answerAndStop(let waiter, let error, let transfer):
      "answerAndStop \(waiter) \(error.kindName) \(transfer)"
    case .endBody(let writer, let error): "endBody \(writer) \(error?.kindName ?? "-")"
    case .endBodyAndStop(let writer, let error, let transfer):
      "endBodyAndStop \(writer) \(error?.kindName ?? "-") \(transfer)"
    }
  }

  static func describe(_ state: Machine.State) -> String {
    switch state {
    case .idle: "idle"
    case .endedBeforeStart(let error): "endedBeforeStart \(error.kindName)"
    case .waiting(let waiter, let transfer): "waiting \(waiter) \(transfer)"
    case .streaming(let transfer, let writer): "streaming \(transfer) \(writer)"
    case .finished: "finished"
    }
  }

  /// What each event does in each state: the action, then the state it leaves. Missing
  /// pairs trap (tested below).
  static let expected: [String: (action: String, then: String)] = [
    "idle refusesStart": ("go on", "idle"),
    "idle start": ("start 8", "waiting caller2 8"),
    "idle ended": ("none", "endedBeforeStart timedOut"),
    "endedBeforeStart refusesStart": ("answer caller2 cancelled", "finished"),
    "endedBeforeStart start": ("refuse caller2 cancelled 8", "finished"),
    "endedBeforeStart ended": ("none", "endedBeforeStart cancelled"),
    "waiting head": ("answer caller 200", "streaming 7 body2"),
    "waiting completedOK": ("answer caller 200", "finished"),
    "waiting completedFailing": ("answer caller transport", "finished"),
    "waiting ended": ("answerAndStop caller timedOut 7", "finished"),
    "streaming head": ("none", "streaming 7 body"),
    "streaming completedOK": ("endBody body -", "finished"),
    "streaming completedFailing": ("endBody body transport", "finished"),
    "streaming responseEndedFirst": ("endBodyAndStop body - 7", "finished"),
    "streaming ended": ("endBodyAndStop body timedOut 7", "finished"),
    "finished head": ("none", "finished"),
    "finished completedOK": ("none", "finished"),
    "finished completedFailing": ("none", "finished"),
    "finished responseEndedFirst": ("none", "finished"),
    "finished ended": ("none", "finished"),
  ]

  /// The pairs that cannot happen: a start after the start, a head or a completion before it,
  /// a response's early end before its head was handed over.
  static let traps: Set<String> = [
    "idle responseEndedFirst", "endedBeforeStart responseEndedFirst", "waiting responseEndedFirst",
    "waiting refusesStart", "waiting start", "streaming refusesStart", "streaming start",
    "finished refusesStart", "finished start", "idle head", "idle completedOK",
    "idle completedFailing", "endedBeforeStart head", "endedBeforeStart completedOK",
    "endedBeforeStart completedFailing",
  ]

  @Test("every pair of state and event is either expected or a trap, never both")
  func tableIsWhole() {
    for state in StartState.allCases {
      for event in Event.allCases {
        let key = "\(state.rawValue) \(event.rawValue)"
        #expect((Self.expected[key] != nil) != Self.traps.contains(key), "\(key)")
      }
    }
  }

  @Test(
    "each event in each state returns its action and leaves its state",
    arguments: StartState.allCases, Event.allCases)
  func transition(_ state: StartState, _ event: Event) {
    let key = "\(state.rawValue) \(event.rawValue)"
    guard let expected = Self.expected[key] else { return }  // a trap: tested below
    var machine = state.machine
    let action = event.feed(&machine)
    #expect(action == expected.action, "\(key)")
    #expect(Self.describe(machine.state) == expected.then, "\(key)")
  }

  @Test("the caller is answered exactly once, whatever the order of the events")
  func answeredOnce() {
    let events: [Event] = [.head, .completedOK, .completedFailing, .ended]
    // Every order of every subset, after the start.
    func orders(_ rest: [Event]) -> [[Event]] {
      guard !rest.isEmpty else { return [[]] }
      var all: [[Event]] = [[]]
      for (index, event) in rest.enumerated() {
        var others = rest
        others.remove(at: index)
        all += orders(others).map { [event] + $0 }
      }
      return all
    }
    for order in orders(events) {
      var machine = Machine()
      _ = machine.start("caller", 7)
      var answers = 0
      var bodyEnds = 0
      for event in order {
        let action = event.feed(&machine)
        if action.hasPrefix("answer") { answers += 1 }
        if action.hasPrefix("endBody") { bodyEnds += 1 }
      }
      #expect(answers <= 1, "\(order)")
      #expect(bodyEnds <= 1, "\(order)")
      if order.contains(where: { $0 != .head }) { #expect(answers == 1, "\(order)") }
    }
  }

  @Test("starting twice traps")
  func startTwiceTraps() async {
    await #expect(processExitsWith: .failure) {
      var machine = RequestMachine<String, Int, String>()
      _ = machine.start("a", 1)
      _ = machine.start("b", 2)
    }
  }

  @Test("a head before the start traps")
  func headBeforeStartTraps() async {
    await #expect(processExitsWith: .failure) {
      var machine = RequestMachine<String, Int, String>()
      _ = machine.receivedHead(TransportResponse(HTTPResponse(status: 200)), writer: "w")
    }
  }

  @Test("a completion before the start traps, also after an early end")
  func completionBeforeStartTraps() async {
    await #expect(processExitsWith: .failure) {
      var machine = RequestMachine<String, Int, String>()
      _ = machine.ended(with: .cancelled)
      _ = machine.completed(.success(TransportResponse(HTTPResponse(status: 200))))
    }
  }
}

extension HTTPError {
  /// The case's name, for comparing actions as text.
  fileprivate var kindName: String {
    switch self {
    case .cancelled: "cancelled"
    case .timedOut: "timedOut"
    case .transport: "transport"
    default: "other"
    }
  }
}
