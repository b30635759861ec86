// CurlTransport's WebSocket (the Linux default) is the client under test.
#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation
  import Testing

  @testable import Courier

  private typealias Frame = LoopbackWebSocket.Frame

  /// Autobahn|Testsuite section 6, the loopback server fuzzing and Courier's client echoing:
  /// text messages whose UTF-8 is valid or not, whole, fragmented, and cut inside characters.
  @Suite("Autobahn 6: UTF-8 handling", .timeLimit(.minutes(1)))
  struct AutobahnUTF8Tests {
    @Test(
      "6 UTF-8: valid text is echoed, however cut; invalid text fails with 1007, early",
      arguments: utf8Cases + sequenceCases)
    func utf8(_ fuzz: AutobahnCase) async throws {
      try await Autobahn.check(fuzz)
    }
  }

  private let greeting = "Hello-µ@ßöäüàá-UTF-8!!"
  /// "κόσμε", which the UTF-8 cases build on.
  private let kosme: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]
  private let edited = Array("edited".utf8)
  /// κόσμε, a surrogate (invalid at its second byte, the message's 13th), "edited".
  private let surrogate = kosme + [0xED, 0xA0, 0x80] + edited
  /// κόσμε, U+110000 written as UTF-8 would (invalid at its second byte), "edited".
  private let outOfRange = kosme + [0xF4, 0x90, 0x80, 0x80] + edited

  /// 6.4.x: an invalid message in three parts, a probe after the first (the client must
  /// still be open) and after the second (it must have failed already: fail fast).
  private func failFast(_ id: String, parts: [[UInt8]]) -> AutobahnCase {
    .fails(
      id, .frames(.text(bytes: parts[0], fin: false)), .probe("A"),
      .frames(Frame(fin: false, opcode: 0x0, payload: Data(parts[1]))), .probe("B"),
      .frames(Frame(opcode: 0x0, payload: Data(parts[2]))),
      ok: [.open("A")], nonStrict: [.open("A"), .open("B")], end: .invalidUTF8)
  }

  /// 6.4.3 and 6.4.4: the same parts as chops of one frame. No probe fits inside a frame, so
  /// the server waits, after the invalid chop, for the client to fail the connection before
  /// it sends the third chop, which ends the frame: a client that reads a frame's payload
  /// only once the frame is whole never fails it, and the case runs out of time.
  private func failFastInFrame(_ id: String, parts: [[UInt8]]) -> AutobahnCase {
    let count = parts.map(\.count).reduce(0, +)
    return .fails(
      id, .raw([0x81, UInt8(count)] + parts[0]), .raw(parts[1]), .awaitClientEnd,
      .raw(parts[2]), end: .invalidUTF8)
  }

  let utf8Cases: [AutobahnCase] = [
    .echo("6.1.1", .frames(.text("")), expect: [.text("")]),
    .echo(
      "6.1.2", .frames(.text("", fin: false), .frame(0x0, fin: false), .frame(0x0)),
      expect: [.text("")]),
    .echo(
      "6.1.3",
      .frames(.text("", fin: false), .frame(0x0, "middle frame payload", fin: false), .frame(0x0)),
      expect: [.text("middle frame payload")]),
    .echo("6.2.1", .frames(.text(greeting)), expect: [.text(greeting)]),
    .echo(
      "6.2.2", .frames(.text("Hello-µ@ßöä", fin: false), .frame(0x0, "üàá-UTF-8!!")),
      expect: [.text(greeting)]),
    .echo(
      "6.2.3", .send(Frame.message(0x1, Array(greeting.utf8), fragmentSize: 1), .together),
      expect: [.text(greeting)]),
    .echo(
      "6.2.4", .send(Frame.message(0x1, kosme, fragmentSize: 1), .together),
      expect: [.text(Data(kosme))]),
    .fails("6.3.1", .frames(.text(bytes: surrogate)), end: .invalidUTF8),
    .fails(
      "6.3.2", .send(Frame.message(0x1, surrogate, fragmentSize: 1), .together), end: .invalidUTF8),
    failFast("6.4.1", parts: [kosme, [0xF4, 0x90, 0x80, 0x80], edited]),
    failFast(
      "6.4.2",
      parts: [Array(outOfRange[..<12]), [outOfRange[12]], Array(outOfRange[13...])]),
    failFastInFrame("6.4.3", parts: [kosme, [0xF4, 0x90, 0x80, 0x80], edited]),
    failFastInFrame(
      "6.4.4",
      parts: [Array(outOfRange[..<12]), [outOfRange[12]], Array(outOfRange[13...])]),
  ]

  // MARK: - 6.5 to 6.23: Markus Kuhn's UTF-8 decoder tests

  /// Each payload sent whole: a valid one is echoed, an invalid one fails with 1007.
  private let sequenceCases: [AutobahnCase] = utf8Sequences.enumerated().flatMap {
    group, sequences in
    sequences.enumerated().map { index, sequence in
      let id = "6.\(group + 5).\(index + 1)"
      let frame = Frame.text(bytes: sequence.bytes)
      return sequence.valid
        ? AutobahnCase.echo(id, .frames(frame), expect: [.text(Data(sequence.bytes))])
        : AutobahnCase.fails(id, .frames(frame), end: .invalidUTF8)
    }
  }

  private func valid(_ sequences: [UInt8]...) -> [(valid: Bool, bytes: [UInt8])] {
    sequences.map { (true, $0) }
  }

  private func invalid(_ sequences: [UInt8]...) -> [(valid: Bool, bytes: [UInt8])] {
    sequences.map { (false, $0) }
  }

  private let incomplete: [[UInt8]] = [
    [0xC0], [0xE0, 0x80], [0xF0, 0x80, 0x80], [0xF8, 0x80, 0x80, 0x80],
    [0xFC, 0x80, 0x80, 0x80, 0x80], [0xDF], [0xEF, 0xBF], [0xF7, 0xBF, 0xBF],
    [0xFB, 0xBF, 0xBF, 0xBF], [0xFD, 0xBF, 0xBF, 0xBF, 0xBF],
  ]

  /// Noncharacters U+FFFE, U+FFFF and U+nFFFE, U+nFFFF of every plane: valid UTF-8.
  private let noncharacters: [[UInt8]] = {
    var sequences: [[UInt8]] = [[0xEF, 0xBF, 0xBE], [0xEF, 0xBF, 0xBF]]
    for first: UInt8 in 0xF0...0xF4 {
      for second: UInt8 in [0x8F, 0x9F, 0xAF, 0xBF] where first != 0xF4 || second == 0x8F {
        for last: UInt8 in [0xBE, 0xBF] where !(first == 0xF0 && second == 0x8F) {
          sequences.append([first, second, 0xBF, last])  // (F0 8F … is overlong)
        }
      }
    }
    return sequences
  }()

  /// The groups 6.5 to 6.23, in Autobahn's order.
  private let utf8Sequences: [[(valid: Bool, bytes: [UInt8])]] = [
    // 6.5 Some valid sequences.
    valid(
      Array("hello$world".utf8), Array("hello\u{A2}world".utf8), Array("hello\u{20AC}world".utf8),
      Array("hello\u{24B62}world".utf8), kosme),
    // 6.6 Every prefix of κόσμε: valid where it ends on a character boundary.
    (1...kosme.count).map { ([2, 5, 7, 9, 11].contains($0), Array(kosme.prefix($0))) },
    // 6.7 The first sequence of each length; 6.8 of lengths 5 and 6 (beyond U+10FFFF).
    valid([0x00], [0xC2, 0x80], [0xE0, 0xA0, 0x80], [0xF0, 0x90, 0x80, 0x80]),
    invalid([0xF8, 0x88, 0x80, 0x80, 0x80], [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80]),
    // 6.9 The last sequence of each length; 6.10 of lengths 4 to 6 (beyond U+10FFFF).
    valid([0x7F], [0xDF, 0xBF], [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF]),
    invalid(
      [0xF7, 0xBF, 0xBF, 0xBF], [0xFB, 0xBF, 0xBF, 0xBF, 0xBF],
      [0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF]
    ),
    // 6.11 Other boundaries: U+D7FF, U+E000, U+FFFD, U+10FFFF, and U+110000.
    valid([0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBD], [0xF4, 0x8F, 0xBF, 0xBF])
      + invalid([0xF4, 0x90, 0x80, 0x80]),
    // 6.12 Unexpected continuation bytes.
    invalid(
      [0x80], [0xBF], [0x80, 0xBF], [0x80, 0xBF, 0x80], [0x80, 0xBF, 0x80, 0xBF],
      [0x80, 0xBF, 0x80, 0xBF, 0x80], [0x80, 0xBF, 0x80, 0xBF, 0x80, 0xBF], Array(0x80..<0xBF)),
    // 6.13 Lonely start bytes, each followed by a space.
    [(0xC0, 0xDF), (0xE0, 0xEF), (0xF0, 0xF7), (0xF8, 0xFB), (0xFC, 0xFD)].map {
      (false, (UInt8($0.0)..<UInt8($0.1)).flatMap { [$0, 0x20] })
    },
    // 6.14 Sequences missing their last byte; 6.15 all of them in a row.
    incomplete.map { (false, $0) },
    invalid(incomplete.flatMap { $0 }),
    // 6.16 Bytes that never appear.
    invalid([0xFE], [0xFF], [0xFE, 0xFE, 0xFF, 0xFF]),
    // 6.17 Overlong "/"; 6.18 the largest overlong sequences; 6.19 overlong NUL.
    invalid(
      [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xF0, 0x80, 0x80, 0xAF], [0xF8, 0x80, 0x80, 0x80, 0xAF],
      [0xFC, 0x80, 0x80, 0x80, 0x80, 0xAF]),
    invalid(
      [0xC1, 0xBF], [0xE0, 0x9F, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF8, 0x87, 0xBF, 0xBF, 0xBF],
      [0xFC, 0x83, 0xBF, 0xBF, 0xBF, 0xBF]),
    invalid(
      [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80], [0xF8, 0x80, 0x80, 0x80, 0x80],
      [0xFC, 0x80, 0x80, 0x80, 0x80, 0x80]),
    // 6.20 Single UTF-16 surrogates; 6.21 paired ones.
    invalid(
      [0xED, 0xA0, 0x80], [0xED, 0xAD, 0xBF], [0xED, 0xAE, 0x80], [0xED, 0xAF, 0xBF],
      [0xED, 0xB0, 0x80], [0xED, 0xBE, 0x80], [0xED, 0xBF, 0xBF]),
    [[0xED, 0xA0, 0x80], [0xED, 0xAD, 0xBF], [0xED, 0xAE, 0x80], [0xED, 0xAF, 0xBF]].flatMap {
      high in [[0xED, 0xB0, 0x80], [0xED, 0xBF, 0xBF]].map { (false, high + $0) }
    },
    // 6.22 Noncharacters; 6.23 Unicode specials (U+FFF9 to U+FFFF): valid.
    noncharacters.map { (true, $0) },
    (0xB9...0xBF).map { (true, [0xEF, 0xBF, UInt8($0)]) },
  ]
#endif
