// CurlTransport's WebSocket (the Linux default) is the client under test.
#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation
  import Testing

  @testable import Courier

  private typealias Frame = LoopbackWebSocket.Frame

  /// Autobahn|Testsuite sections 1 to 4, the loopback server fuzzing and Courier's client
  /// echoing: framing, pings and pongs, reserved bits, opcodes.
  @Suite("Autobahn 1–4: framing, pings, reserved bits, opcodes", .timeLimit(.minutes(1)))
  struct AutobahnFramingTests {
    @Test(
      "1 Framing: text and binary messages of every length class are echoed",
      arguments: framingCases)
    func framing(_ fuzz: AutobahnCase) async throws {
      try await Autobahn.check(fuzz)
    }

    @Test(
      "2 Pings and pongs: pings are answered with their payload, bad ones fail",
      arguments: pingCases)
    func pings(_ fuzz: AutobahnCase) async throws {
      try await Autobahn.check(fuzz)
    }

    @Test(
      "3 Reserved bits: a frame with RSV set fails the connection with 1002",
      arguments: reservedCases)
    func reservedBits(_ fuzz: AutobahnCase) async throws {
      try await Autobahn.check(fuzz)
    }

    @Test("4 Opcodes: an undefined opcode fails the connection with 1002", arguments: opcodeCases)
    func opcodes(_ fuzz: AutobahnCase) async throws {
      try await Autobahn.check(fuzz)
    }
  }

  // MARK: - 1 Framing

  /// 1.1.x text of "*", 1.2.x binary of 0xFE: lengths around the 7-bit and 16-bit length
  /// encodings; the last of each sent in chops of 997 bytes.
  let framingCases: [AutobahnCase] = [(UInt8(0x1), "1.1"), (0x2, "1.2")].flatMap {
    opcode, section in
    let lengths = [0, 125, 126, 127, 128, 65535, 65536, 65536]
    return lengths.enumerated().map { index, length in
      let payload = Data(repeating: opcode == 0x1 ? UInt8(ascii: "*") : 0xFE, count: length)
      let frame = Frame(opcode: opcode, payload: payload)
      let echo: AutobahnEvent = opcode == 0x1 ? .text(payload) : .binary(payload)
      let step: AutobahnStep = index == 7 ? .chopped(997, frame) : .frames(frame)
      return AutobahnCase.echo("\(section).\(index + 1)", step, expect: [echo])
    }
  }

  // MARK: - 2 Pings and pongs

  private let tenPings = (0..<10).map { Frame.ping(Data("payload-\($0)".utf8)) }

  let pingCases: [AutobahnCase] = [
    .echo("2.1", .frames(.ping()), expect: [.pong(Data())]),
    .echo("2.2", .frames(.ping(Data("Hello, world!".utf8))), expect: [.pong("Hello, world!")]),
    .echo(
      "2.3", .frames(.ping(Data([0x00, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0x00, 0xFF]))),
      expect: [.pong(Data([0x00, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0x00, 0xFF]))]),
    .echo(
      "2.4", .frames(.ping(Data(repeating: 0xFE, count: 125))),
      expect: [.pong(Data(repeating: 0xFE, count: 125))]),
    // A control frame over 125 bytes.
    .fails("2.5", .frames(.ping(Data(repeating: 0xFE, count: 126)))),
    .echo(
      "2.6", .chopped(1, .ping(Data(repeating: 0xFE, count: 125))),
      expect: [.pong(Data(repeating: 0xFE, count: 125))]),
    // Unsolicited pongs are ignored.
    .echo("2.7", .frames(.pong(), .close(code: .normalClosure)), expect: []),
    .echo(
      "2.8", .frames(.pong(Data("unsolicited pong payload".utf8)), .close(code: .normalClosure)),
      expect: []),
    .echo(
      "2.9",
      .frames(.pong(Data("unsolicited pong payload".utf8)), .ping(Data("ping payload".utf8))),
      expect: [.pong("ping payload")]),
    .echo("2.10", .send(tenPings, .together), expect: tenPings.map { .pong($0.payload) }),
    .echo("2.11", .send(tenPings, .chopped(1)), expect: tenPings.map { .pong($0.payload) }),
  ]

  // MARK: - 3 Reserved bits

  /// A message, the same with RSV set, a ping: Autobahn wants the first echoed (OK) or
  /// accepts it not (NON-STRICT). Courier gets the first when it reads the bad frame after
  /// the application's echo has gone out, the second when both come in one read (the
  /// connection has failed by then, and the echo is refused).
  private func rsvAfterMessage(_ id: String, rsv: UInt8, pacing: AutobahnPacing) -> AutobahnCase {
    let hello = Frame.text("Hello, world!")
    return .fails(
      id, .send([hello, .frame(0x1, "Hello, world!", reserved: rsv), .ping()], pacing),
      ok: [.text("Hello, world!")], nonStrict: [], grade: .okOrNonStrict)
  }

  private let reservedCases: [AutobahnCase] = [
    .fails("3.1", .frames(.frame(0x1, "Hello, world!", reserved: 1))),
    rsvAfterMessage("3.2", rsv: 2, pacing: .together),
    rsvAfterMessage("3.3", rsv: 3, pacing: .framewise),
    rsvAfterMessage("3.4", rsv: 4, pacing: .chopped(1)),
    .fails(
      "3.5",
      .frames(
        Frame(
          reserved: 5, opcode: 0x2, payload: Data([0x00, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0x00, 0xFF])
        ))),
    .fails("3.6", .frames(.frame(0x2, "Hello, world!", reserved: 6))),
    .fails("3.7", .frames(.frame(0x8, reserved: 7))),
  ]

  // MARK: - 4 Opcodes

  /// A message, a frame with an undefined opcode, a ping: as with reserved bits, the
  /// message's echo may or may not get out before the connection fails.
  private func opcodeAfterMessage(
    _ id: String, opcode: UInt8, payload: String, pacing: AutobahnPacing
  ) -> AutobahnCase {
    .fails(
      id, .send([.text("Hello, world!"), .frame(opcode, payload), .ping()], pacing),
      ok: [.text("Hello, world!")], nonStrict: [], grade: .okOrNonStrict)
  }

  let opcodeCases: [AutobahnCase] = [
    .fails("4.1.1", .frames(.frame(3))),
    .fails("4.1.2", .frames(.frame(4, "reserved opcode payload"))),
    opcodeAfterMessage("4.1.3", opcode: 5, payload: "", pacing: .together),
    opcodeAfterMessage("4.1.4", opcode: 6, payload: "Hello, world!", pacing: .together),
    opcodeAfterMessage("4.1.5", opcode: 7, payload: "Hello, world!", pacing: .chopped(1)),
    .fails("4.2.1", .frames(.frame(11))),
    .fails("4.2.2", .frames(.frame(12, "reserved opcode payload"))),
    opcodeAfterMessage("4.2.3", opcode: 13, payload: "", pacing: .together),
    opcodeAfterMessage("4.2.4", opcode: 14, payload: "Hello, world!", pacing: .together),
    opcodeAfterMessage("4.2.5", opcode: 15, payload: "Hello, world!", pacing: .chopped(1)),
  ]
#endif
