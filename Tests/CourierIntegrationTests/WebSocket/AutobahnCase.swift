// CurlTransport's WebSocket (the Linux default) is the client under test.
#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation
  import Testing

  @testable import Courier

  /// One case of Autobahn|Testsuite's fuzzing server (crossbario/autobahn-testsuite,
  /// `autobahntestsuite/case/`), as data: what the server sends, what a client that echoes
  /// every message must send back, and how the connection must end.
  ///
  /// Autobahn paces some cases with one-second waits; here a wait is an event instead: a
  /// ``AutobahnStep/probe(_:)`` ping whose pong shows the client still open, or an
  /// ``AutobahnStep/await(_:)`` for replies that must come before the server goes on.
  struct AutobahnCase: Sendable, CustomTestStringConvertible {
    /// Autobahn's number, such as "5.19".
    var id: String
    /// What the fuzzing server does, in order.
    var script: [AutobahnStep]
    /// What the server must receive for Autobahn's OK grade.
    var ok: [AutobahnEvent]
    /// What the server may receive instead for NON-STRICT, where Autobahn allows it.
    var nonStrict: [AutobahnEvent]?
    /// How the connection must end.
    var end: AutobahnEnd
    /// The grade Courier earns, which the test holds it to.
    var grade: AutobahnGrade = .ok
    /// The largest message the client accepts.
    var maximumMessageSize = 1 << 20

    var testDescription: String { id }

    /// The event lists the test accepts: those of the grade Courier earns.
    var accepted: [[AutobahnEvent]] {
      switch grade {
      case .ok: [ok]
      case .nonStrict: [nonStrict ?? ok]
      case .okOrNonStrict: [ok] + (nonStrict.map { [$0] } ?? [])
      // Anything on the way to OK: implementations differ in how far they get.
      case .informational: (0...ok.count).map { Array(ok.prefix($0)) }
      }
    }
  }

  /// What the fuzzing server does next.
  enum AutobahnStep: Sendable {
    /// Frames written back to back, paced as given.
    case send([LoopbackWebSocket.Frame], AutobahnPacing)
    /// Bytes written as they are: part of a frame.
    case raw([UInt8])
    /// A ping carrying `label`, then waits for its pong, which counts as `.open(label)`:
    /// Autobahn's one-second wait to see that the client did not fail the connection. Once
    /// the client has failed it, the ping goes unanswered and the script stops.
    case probe(String)
    /// Waits until this many events have arrived (Autobahn waits one second).
    case await(Int)
    /// Waits for the client's close frame, or the end of the connection: for a failure the
    /// client must see before the server goes on (Autobahn waits one second).
    case awaitClientEnd

    /// Frames written in one go (Autobahn's `sendFrame` calls in a row).
    static func frames(_ frames: LoopbackWebSocket.Frame...) -> AutobahnStep {
      .send(frames, .together)
    }

    /// Frames written one write each (Autobahn's `sync = True`).
    static func framewise(_ frames: LoopbackWebSocket.Frame...) -> AutobahnStep {
      .send(frames, .framewise)
    }

    /// Frames written `size` bytes at a time (Autobahn's `chopsize`).
    static func chopped(_ size: Int, _ frames: LoopbackWebSocket.Frame...) -> AutobahnStep {
      .send(frames, .chopped(size))
    }
  }

  /// How a step's frames go out on the wire.
  enum AutobahnPacing: Sendable, Equatable {
    case together
    case framewise
    case chopped(Int)
  }

  /// What the fuzzing server receives from the client.
  enum AutobahnEvent: Sendable, Equatable, CustomStringConvertible {
    /// A text message, as its bytes.
    case text(Data)
    case binary(Data)
    case pong(Data)
    case ping(Data)
    /// A probe's pong: the client was still open (Autobahn's `("timeout", label)`).
    case open(String)

    static func text(_ text: String) -> AutobahnEvent { .text(Data(text.utf8)) }
    static func pong(_ text: String) -> AutobahnEvent { .pong(Data(text.utf8)) }

    var description: String {
      switch self {
      case .text(let data): "text(\(Self.brief(data)))"
      case .binary(let data): "binary(\(Self.brief(data)))"
      case .pong(let data): "pong(\(Self.brief(data)))"
      case .ping(let data): "ping(\(Self.brief(data)))"
      case .open(let label): "open(\(label))"
      }
    }

    /// A payload short enough to read in a failure.
    private static func brief(_ data: Data) -> String {
      let hex = data.prefix(16).map { String(format: "%02x", $0) }.joined()
      return data.count > 16 ? "\(data.count) bytes: \(hex)…" : hex
    }
  }

  /// How the connection ends, as Autobahn's `expectedClose` says.
  enum AutobahnEnd: Sendable {
    /// The server closes it (Autobahn's `closedByMe`): with `code` once the OK events are
    /// in, unless the script sent a close frame itself. The client answers with a close
    /// frame carrying one of `answers` (`nil`: no code) and ends as `client` says.
    case serverCloses(
      code: WebSocketCloseCode = .normalClosure, answers: [WebSocketCloseCode?],
      client: AutobahnClientEnd)
    /// The client fails it first, with a close frame carrying one of `codes`. Autobahn
    /// would also accept the TCP connection dropped; Courier always sends the frame, which
    /// the test requires.
    case clientFails([WebSocketCloseCode], client: AutobahnClientEnd)

    /// The server closes with 1000 and the client answers 1000 and ends cleanly.
    static let normal = AutobahnEnd.serverCloses(
      answers: [.normalClosure], client: .closed(.normalClosure))

    /// The client fails the connection with 1002 (a protocol error).
    static let protocolError = AutobahnEnd.clientFails(
      [.protocolError], client: .failed(.badServerResponse))

    /// The client fails the connection with 1007 (text that is not UTF-8).
    static let invalidUTF8 = AutobahnEnd.clientFails(
      [.invalidFramePayloadData], client: .failed(.badServerResponse))
  }

  /// How the echoing client's loop ends.
  enum AutobahnClientEnd: Sendable, Equatable {
    /// The messages end without error, and ``WebSocket/closure`` holds this code.
    case closed(WebSocketCloseCode)
    /// The loop throws this error (``HTTPError/transport(_:)`` with `.badServerResponse`
    /// for a protocol breach, or ``HTTPError/responseTooLarge(limit:)``).
    case failed(AutobahnFailure)
    /// Anything (Autobahn's INFORMATIONAL cases).
    case any
  }

  /// The kind of error the client's loop throws.
  enum AutobahnFailure: Sendable, Equatable {
    case badServerResponse
    case tooLarge(limit: Int)

    /// Whether `error` is of this kind.
    func matches(_ error: HTTPError) -> Bool {
      switch self {
      case .badServerResponse: error.urlErrorCode == .badServerResponse
      case .tooLarge(let limit): error == .responseTooLarge(limit: limit)
      }
    }
  }

  /// Autobahn's grade for the behaviour of a case.
  enum AutobahnGrade: Sendable {
    /// The events are the OK ones.
    case ok
    /// The events are the NON-STRICT ones: allowed, not the best.
    case nonStrict
    /// Either, depending on how the bytes arrive.
    case okOrNonStrict
    /// The spec leaves it open; Autobahn only reports it.
    case informational
  }

  extension AutobahnCase {
    /// A case the client passes by echoing `events` and answering the server's close.
    static func echo(
      _ id: String, _ script: AutobahnStep..., expect events: [AutobahnEvent],
      maximumMessageSize: Int = 1 << 20
    ) -> AutobahnCase {
      AutobahnCase(
        id: id, script: script, ok: events, end: .normal, maximumMessageSize: maximumMessageSize)
    }

    /// A case the client passes by failing the connection with `end`, having echoed `ok`
    /// first (or `nonStrict`, where Autobahn allows it and Courier earns `grade`).
    static func fails(
      _ id: String, _ script: AutobahnStep..., ok: [AutobahnEvent] = [],
      nonStrict: [AutobahnEvent]? = nil, grade: AutobahnGrade = .ok,
      end: AutobahnEnd = .protocolError
    ) -> AutobahnCase {
      AutobahnCase(id: id, script: script, ok: ok, nonStrict: nonStrict, end: end, grade: grade)
    }
  }

  // MARK: - Frames

  extension LoopbackWebSocket.Frame {
    /// A frame with any opcode and payload given as text.
    static func frame(
      _ opcode: UInt8, _ text: String = "", fin: Bool = true, reserved: UInt8 = 0
    ) -> LoopbackWebSocket.Frame {
      LoopbackWebSocket.Frame(
        fin: fin, reserved: reserved, opcode: opcode, payload: Data(text.utf8))
    }

    /// A text frame carrying `bytes` as they are, valid UTF-8 or not.
    static func text(bytes: [UInt8], fin: Bool = true) -> LoopbackWebSocket.Frame {
      LoopbackWebSocket.Frame(fin: fin, opcode: 0x1, payload: Data(bytes))
    }

    /// A close frame whose payload is exactly `bytes`.
    static func close(bytes: [UInt8]) -> LoopbackWebSocket.Frame {
      LoopbackWebSocket.Frame(opcode: 0x8, payload: Data(bytes))
    }

    /// A message as Autobahn's `sendMessage(fragmentSize:)` sends it: frames of `size`
    /// bytes, the first with the message's opcode, the rest continuations.
    static func message(_ opcode: UInt8, _ bytes: [UInt8], fragmentSize size: Int)
      -> [LoopbackWebSocket.Frame]
    {
      guard bytes.count > size else {
        return [LoopbackWebSocket.Frame(opcode: opcode, payload: Data(bytes))]
      }
      return stride(from: 0, to: bytes.count, by: size).map { start in
        let end = min(start + size, bytes.count)
        return LoopbackWebSocket.Frame(
          fin: end == bytes.count, opcode: start == 0 ? opcode : 0x0,
          payload: Data(bytes[start..<end]))
      }
    }

    /// The frame on the wire, as the loopback server writes it (unmasked).
    var wire: [UInt8] {
      WebSocketFrame(
        fin: fin, reserved: reserved, opcode: WebSocketFrame.Opcode(rawValue: opcode),
        payload: Array(payload)
      ).encoded(mask: nil)
    }
  }

  extension Data {
    /// `pattern` repeated up to `count` bytes (Autobahn's `payload_len`).
    static func repeating(_ pattern: String, count: Int) -> Data {
      repeating(Array(pattern.utf8), count: count)
    }

    /// `pattern` repeated up to `count` bytes.
    static func repeating(_ pattern: [UInt8], count: Int) -> Data {
      var data = Data(pattern)
      while data.count < count { data.append(data) }
      return Data(data.prefix(count))
    }
  }
#endif
