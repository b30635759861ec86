// CurlTransport's WebSocket (the Linux default) is the client under test.
#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation
  import Testing

  @testable import Courier

  private typealias Frame = LoopbackWebSocket.Frame

  /// Autobahn|Testsuite section 7, the loopback server fuzzing and Courier's client echoing:
  /// the close handshake the server starts, with close frames well-formed and not.
  @Suite("Autobahn 7: close handling", .timeLimit(.minutes(1)))
  struct AutobahnCloseTests {
    @Test(
      "7 Close: the server's close is answered with its code; a malformed one with 1002 or 1007",
      arguments: closeCases)
    func close(_ fuzz: AutobahnCase) async throws {
      try await Autobahn.check(fuzz)
    }

    @Test(
      "7.1.2 Two close frames: the second is ignored, and the closure keeps the first's code")
    func twoCloseFrames() async throws {
      try await Autobahn.check(closes("7.1.2", normal, Frame.close(code: nil)))
    }
  }

  private let normal = Frame.close(code: .normalClosure)

  /// The client answers the server's close with `answer` and its loop ends as `client` says.
  private func closes(
    _ id: String, _ frames: Frame..., answers: [WebSocketCloseCode?] = [.normalClosure],
    client: AutobahnClientEnd = .closed(.normalClosure)
  ) -> AutobahnCase {
    AutobahnCase(
      id: id, script: [.send(frames, .together)], ok: [],
      end: .serverCloses(answers: answers, client: client))
  }

  /// The server's close frame is malformed: the client answers it with 1002 and fails.
  private func refused(_ id: String, _ frame: Frame) -> AutobahnCase {
    closes(id, frame, answers: [.protocolError], client: .failed(.badServerResponse))
  }

  private func code(_ value: UInt16) -> WebSocketCloseCode {
    WebSocketCloseCode(rawValue: value)
  }

  /// 7.7.x: the codes an endpoint may send; Autobahn accepts 1000 or the code echoed.
  private let validCodes: [UInt16] = [
    1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999,
  ]
  /// 7.9.x: codes no endpoint may send.
  private let invalidCodes: [UInt16] = [0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999]

  let closeCases: [AutobahnCase] =
    [
      // The message is echoed; then the server closes.
      .echo("7.1.1", .frames(.text("Hello World!")), expect: [.text("Hello World!")]),
      // After the server's close, a ping, a text message and the rest of a fragmented
      // message are all ignored (7.1.2, a second close, is a test of its own).
      closes("7.1.3", normal, .ping()),
      closes("7.1.4", normal, .text("Hello World!")),
      closes("7.1.5", .text("fragment1", fin: false), normal, .frame(0x0, "fragment2")),
      // A 256 KiB message, a small one, the close and a ping back to back: whether the
      // echoes get out before the close is answered is up to the implementation (Courier
      // answers the close at once from its connection thread; the echoes then fail).
      AutobahnCase(
        id: "7.1.6",
        script: [
          .frames(
            .text(String(decoding: Data.repeating("BAsd7&jh23", count: 256 << 10), as: UTF8.self)),
            .text("Hello World!"), normal, .ping())
        ],
        ok: [.text(Data.repeating("BAsd7&jh23", count: 256 << 10)), .text("Hello World!")],
        nonStrict: [], end: .serverCloses(answers: [.normalClosure], client: .any),
        grade: .informational),
      // 7.3 The close frame's length: empty (answered empty), one byte (no code), a code, a
      // code and reason, a reason of 123 bytes, and of 124 (a control frame over 125).
      closes(
        "7.3.1", .close(code: nil), answers: [nil, .normalClosure],
        client: .closed(.noStatusReceived)),
      refused("7.3.2", .close(bytes: Array("a".utf8))),
      closes("7.3.3", normal),
      closes("7.3.4", .close(code: .normalClosure, reason: "Hello World!")),
      closes("7.3.5", .close(code: .normalClosure, reason: String(repeating: "*", count: 123))),
      refused(
        "7.3.6", .close(bytes: [0x03, 0xE8] + Array(repeating: UInt8(ascii: "*"), count: 124))),
      // 7.5.1 A reason that is not UTF-8: 1007 (Autobahn accepts 1002 too).
      closes(
        "7.5.1",
        .close(
          bytes: [
            0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED,
            0xA0, 0x80,
          ] + Array("edited".utf8)),
        answers: [.protocolError, .invalidFramePayloadData], client: .failed(.badServerResponse)),
    ]
    + validCodes.enumerated().map { index, value in
      closes(
        "7.7.\(index + 1)", .close(code: code(value)), answers: [.normalClosure, code(value)],
        client: .closed(code(value)))
    }
    + invalidCodes.enumerated().map { index, value in
      refused("7.9.\(index + 1)", .close(code: code(value)))
    }
    + [
      // 7.13 Codes past 4999: the spec leaves the answer open (Autobahn: INFORMATIONAL,
      // accepting 1000, the code, or 1002); Courier answers 1002.
      refused("7.13.1", .close(code: code(5000))),
      refused("7.13.2", .close(code: code(65535))),
    ]
#endif
