// CurlTransport's WebSocket (the Linux default) is the client under test.
#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation
  import Testing

  @testable import Courier

  private typealias Frame = LoopbackWebSocket.Frame

  /// Autobahn|Testsuite section 5, the loopback server fuzzing and Courier's client echoing:
  /// fragmented messages, control frames between fragments, and fragments out of order.
  @Suite("Autobahn 5: fragmentation", .timeLimit(.minutes(1)))
  struct AutobahnFragmentationTests {
    @Test(
      "5 Fragmentation: fragments are joined, pings between them answered, misuse fails",
      arguments: fragmentationCases)
    func fragmentation(_ fuzz: AutobahnCase) async throws {
      try await Autobahn.check(fuzz)
    }
  }

  private func fragment(_ opcode: UInt8, _ text: String, fin: Bool) -> Frame {
    .frame(opcode, text, fin: fin)
  }

  /// Each script with its frames together, one write each, and one byte at a time.
  private func paced(
    _ ids: [String], _ frames: [Frame], _ make: (String, AutobahnStep) -> AutobahnCase
  ) -> [AutobahnCase] {
    zip(ids, [AutobahnPacing.together, .framewise, .chopped(1)]).map { id, pacing in
      make(id, .send(frames, pacing))
    }
  }

  private let twoFragments = [
    fragment(0x1, "fragment1", fin: false), fragment(0x0, "fragment2", fin: true),
  ]
  private let pingBetween = [
    fragment(0x1, "fragment1", fin: false), Frame.ping(Data("ping payload".utf8)),
    fragment(0x0, "fragment2", fin: true),
  ]
  /// A continuation first, final or not, then a text message: nothing to continue.
  private let unstartedFinal = [
    fragment(0x0, "non-continuation payload", fin: true), .text("Hello, world!"),
  ]
  private let unstartedOpen = [
    fragment(0x0, "non-continuation payload", fin: false), .text("Hello, world!"),
  ]
  private let fragments = ["fragment1", "fragment2", "fragment3", "fragment4", "fragment5"]
  private let pongme = ["pongme 1!", "pongme 2!"]

  /// 5.19 and 5.20: a message in five fragments with pings after the second and fourth;
  /// the first ping's pong must come before the message has ended (Autobahn waits a
  /// second for it, here the server waits for the pong).
  private func pingsInLongMessage(_ id: String, pacing: AutobahnPacing) -> AutobahnCase {
    .echo(
      id,
      .send(
        [
          fragment(0x1, fragments[0], fin: false), fragment(0x0, fragments[1], fin: false),
          .ping(Data(pongme[0].utf8)),
        ], pacing),
      .await(1),
      .send(
        [
          fragment(0x0, fragments[2], fin: false), fragment(0x0, fragments[3], fin: false),
          .ping(Data(pongme[1].utf8)), fragment(0x0, fragments[4], fin: true),
        ], pacing),
      expect: [.pong(pongme[0]), .pong(pongme[1]), .text(fragments.joined())])
  }

  private let fragmentationCases: [AutobahnCase] =
    [
      // Control frames may not be fragmented.
      .fails(
        "5.1",
        .frames(.ping(Data("fragment1".utf8), fin: false), fragment(0x0, "fragment2", fin: true))),
      .fails(
        "5.2",
        .frames(.frame(0xA, "fragment1", fin: false), fragment(0x0, "fragment2", fin: true))),
    ]
    + paced(["5.3", "5.4", "5.5"], twoFragments) {
      .echo($0, $1, expect: [.text("fragment1fragment2")])
    }
    + paced(["5.6", "5.7", "5.8"], pingBetween) {
      .echo($0, $1, expect: [.pong("ping payload"), .text("fragment1fragment2")])
    }
    + paced(["5.9", "5.10", "5.11"], unstartedFinal) { .fails($0, $1) }
    + paced(["5.12", "5.13", "5.14"], unstartedOpen) { .fails($0, $1) }
    + [
      // A whole message, then a continuation with nothing to continue: the message's echo
      // gets out (OK) unless the bad frame comes in the same read (NON-STRICT, see 3.2).
      .fails(
        "5.15",
        .frames(
          fragment(0x1, fragments[0], fin: false), fragment(0x0, fragments[1], fin: true),
          fragment(0x0, fragments[2], fin: false), fragment(0x1, fragments[3], fin: true)),
        ok: [.text("fragment1fragment2")], nonStrict: [], grade: .okOrNonStrict),
      .fails(
        "5.16",
        .send(
          Array(
            repeating: [
              fragment(0x0, "fragment1", fin: false), fragment(0x1, "fragment2", fin: false),
              fragment(0x0, "fragment3", fin: true),
            ], count: 2
          ).flatMap { $0 }, .together)),
      .fails(
        "5.17",
        .send(
          Array(
            repeating: [
              fragment(0x0, "fragment1", fin: true), fragment(0x1, "fragment2", fin: false),
              fragment(0x0, "fragment3", fin: true),
            ], count: 2
          ).flatMap { $0 }, .together)),
      // A new text frame inside a fragmented message.
      .fails(
        "5.18",
        .frames(fragment(0x1, "fragment1", fin: false), fragment(0x1, "fragment2", fin: true))),
      pingsInLongMessage("5.19", pacing: .together),
      pingsInLongMessage("5.20", pacing: .framewise),
    ]
#endif
