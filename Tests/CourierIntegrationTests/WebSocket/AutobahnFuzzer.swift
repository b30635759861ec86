// CurlTransport's WebSocket (the Linux default) is the client under test.
#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// What the fuzzing server saw of the client.
  struct AutobahnRecord: Sendable {
    /// Messages, pongs, pings and answered probes, in the order they arrived.
    var events: [AutobahnEvent] = []
    /// The client's close frame, if one came.
    var clientClose: LoopbackWebSocket.CloseFrame?
    /// The server sent a close frame before the client's came.
    var serverClosed = false
    /// The client's close frame came before the server had sent one.
    var clientClosedFirst = false
    /// A write failed (the client had gone), so the rest of the script was not sent.
    var writeFailed = false
    /// Something the client sent that no client may.
    var problem: String?
  }

  /// Plays a case's fuzzing server on one upgraded connection and records what comes back.
  struct AutobahnFuzzer {
    /// The payload of a probe's ping starts with this.
    static let probePrefix = "autobahn probe "

    let socket: LoopbackWebSocket
    private(set) var record = AutobahnRecord()
    /// The opcode and payload so far of a fragmented message from the client.
    private var fragments: (opcode: UInt8, payload: Data)?
    /// The client's close frame came, or the connection ended.
    private var ended = false

    init(socket: LoopbackWebSocket) {
      self.socket = socket
    }

    /// Runs the script, closes when Autobahn's server would, and reads the client's frames
    /// up to its close frame or the end of the connection.
    mutating func play(_ fuzz: AutobahnCase) async {
      for step in fuzz.script {
        guard !ended, !record.writeFailed else { break }
        switch step {
        case .send(let frames, let pacing):
          await write(Self.chunks(frames, pacing))
          // A close frame that is one (a close with RSV set is a protocol error).
          if frames.contains(where: { $0.opcode == 0x8 && $0.reserved == 0 }) {
            record.serverClosed = true
          }
        case .raw(let bytes):
          await write([bytes])
        case .probe(let label):
          await write([LoopbackWebSocket.Frame.ping(Data((Self.probePrefix + label).utf8)).wire])
          await read { $0.events.contains(.open(label)) }
        case .await(let count):
          await read { $0.events.count >= count }
        case .awaitClientEnd:
          await read { _ in false }
        }
      }
      if case .serverCloses(let code, _, _) = fuzz.end, !record.serverClosed {
        await read { $0.events.count >= fuzz.ok.count }
        if !ended {
          await write([LoopbackWebSocket.Frame.close(code: code).wire])
          record.serverClosed = true
        }
      }
      await read { _ in false }
      // Autobahn's server answers the client's close (the client may have gone already).
      if let close = record.clientClose, !record.serverClosed {
        try? await socket.close(code: close.code)
      }
    }

    /// Writes `chunks` one write each; stops at the first that fails.
    private mutating func write(_ chunks: [[UInt8]]) async {
      for chunk in chunks {
        do {
          try await socket.sendRaw(Data(chunk))
        } catch {
          record.writeFailed = true
          return
        }
      }
    }

    /// Reads the client's frames until `done` holds, the client's close frame comes, or the
    /// connection ends.
    private mutating func read(until done: (AutobahnRecord) -> Bool) async {
      while !ended, !done(record) {
        do {
          guard let frame = try await socket.receiveFrame() else {
            ended = true
            return
          }
          take(frame)
        } catch {
          record.problem = "\(error)"
          ended = true
        }
      }
    }

    private mutating func take(_ frame: LoopbackWebSocket.Frame) {
      switch frame.opcode {
      case 0x8:
        record.clientClose = socket.closeFrame
        record.clientClosedFirst = !record.serverClosed
        ended = true
      case 0x9:
        record.events.append(.ping(frame.payload))
      case 0xA:
        let text = String(decoding: frame.payload, as: UTF8.self)
        record.events.append(
          text.hasPrefix(Self.probePrefix)
            ? .open(String(text.dropFirst(Self.probePrefix.count))) : .pong(frame.payload))
      case 0x1, 0x2:
        guard fragments == nil else {
          record.problem = "a message began inside a fragmented one"
          return
        }
        fragments = (frame.opcode, frame.payload)
        if frame.fin { finishMessage() }
      case 0x0:
        guard fragments != nil else {
          record.problem = "a continuation frame continued no message"
          return
        }
        fragments?.payload.append(frame.payload)
        if frame.fin { finishMessage() }
      default:
        record.problem = "opcode \(frame.opcode)"
      }
    }

    private mutating func finishMessage() {
      guard let (opcode, payload) = fragments else { return }
      fragments = nil
      record.events.append(opcode == 0x1 ? .text(payload) : .binary(payload))
    }

    /// The bytes of `frames` cut into writes as `pacing` says.
    static func chunks(_ frames: [LoopbackWebSocket.Frame], _ pacing: AutobahnPacing) -> [[UInt8]] {
      switch pacing {
      case .together:
        return [frames.flatMap(\.wire)]
      case .framewise:
        return frames.map(\.wire)
      case .chopped(let size):
        let bytes = frames.flatMap(\.wire)
        return stride(from: 0, to: bytes.count, by: size).map {
          Array(bytes[$0..<min($0 + size, bytes.count)])
        }
      }
    }
  }

  /// Runs Autobahn cases: the loopback server plays the fuzzing server, Courier's client
  /// echoes every message back until the connection closes.
  enum Autobahn {
    /// How a case went on both sides.
    struct Outcome: Sendable {
      var record: AutobahnRecord
      /// What the client's echo loop threw, if anything.
      var clientError: HTTPError?
      /// The server's close frame as the client saw it.
      var closure: WebSocketClosure?
    }

    /// How the echoing client is written.
    enum Client: Sendable, CaseIterable, CustomStringConvertible {
      /// It keeps its socket until the server is done (and could still call `close()`).
      case holding
      /// It lets go of its socket as soon as its loop ends, as most code does: what is left
      /// of the close handshake must happen without it.
      case lettingGo

      var description: String { self == .holding ? "holding its socket" : "letting it go" }
    }

    /// Plays `fuzz` against Courier's client over `transport` (CurlTransport by default).
    static func run(
      _ fuzz: AutobahnCase, client: Client = .holding,
      transport: any HTTPTransport = WebSocketServer.transport, closeTimeout: Duration = .seconds(5)
    ) async throws -> Outcome {
      let played = Locked(AutobahnRecord())
      let done = Signal()
      let loopback = try WebSocketServer(transport: transport) { _, socket in
        defer { done.fire() }
        var fuzzer = AutobahnFuzzer(socket: socket)
        await fuzzer.play(fuzz)
        played.withLock { $0 = fuzzer.record }
      }
      defer { loopback.stop() }
      let socket = try await loopback.client.webSocket(
        Request<Data>(path: "case/\(fuzz.id)"),
        settings: .init(
          maximumMessageSize: fuzz.maximumMessageSize, pingInterval: nil,
          closeTimeout: closeTimeout))
      switch client {
      case .holding:
        let clientError = await echo(socket)
        await done.wait()
        return Outcome(
          record: played.withLock { $0 }, clientError: clientError, closure: socket.closure)
      case .lettingGo:
        let (clientError, closure) = await echoLettingGo(consume socket)
        await done.wait()
        return Outcome(record: played.withLock { $0 }, clientError: clientError, closure: closure)
      }
    }

    /// Echoes every message until the messages end; what the loop threw, if anything.
    private static func echo(_ socket: WebSocket) async -> HTTPError? {
      do throws(HTTPError) {
        for try await message in socket.messages {
          try await socket.send(message)
        }
        return nil
      } catch {
        return error
      }
    }

    /// Echoes as ``echo(_:)`` does and lets go of `socket` the moment the loop ends: the
    /// socket is gone by the time this returns.
    private static func echoLettingGo(_ socket: consuming WebSocket) async -> (
      HTTPError?, WebSocketClosure?
    ) {
      let clientError = await echo(socket)
      return (clientError, socket.closure)
    }

    /// Plays `fuzz` with each kind of client and checks the outcome against it.
    static func check(
      _ fuzz: AutobahnCase, transport: any HTTPTransport = WebSocketServer.transport,
      closeTimeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
      for client in Client.allCases {
        try await check(
          fuzz, client: client, transport: transport, closeTimeout: closeTimeout,
          sourceLocation: sourceLocation)
      }
    }

    /// Plays `fuzz` with `client` and checks the outcome against it.
    static func check(
      _ fuzz: AutobahnCase, client: Client,
      transport: any HTTPTransport = WebSocketServer.transport,
      closeTimeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
      let outcome = try await run(
        fuzz, client: client, transport: transport, closeTimeout: closeTimeout)
      let record = outcome.record
      #expect(
        record.problem == nil, "the client (\(client)) sent a bad frame",
        sourceLocation: sourceLocation)
      #expect(
        fuzz.accepted.contains(record.events),
        "the client (\(client)): received \(record.events), expected \(fuzz.accepted) (\(fuzz.grade))",
        sourceLocation: sourceLocation)
      #expect(
        record.clientClose != nil, "no close frame from the client (\(client))",
        sourceLocation: sourceLocation)
      let code = record.clientClose?.code
      let clientEnd: AutobahnClientEnd
      switch fuzz.end {
      case .serverCloses(_, let answers, let expected):
        #expect(
          record.serverClosed && !record.clientClosedFirst, "the client (\(client)) closed first",
          sourceLocation: sourceLocation)
        #expect(
          answers.contains(code),
          "the client (\(client)) answered \(code.map { "\($0)" } ?? "no code")",
          sourceLocation: sourceLocation)
        clientEnd = expected
      case .clientFails(let codes, let expected):
        #expect(
          !record.serverClosed, "the client (\(client)) did not fail the connection",
          sourceLocation: sourceLocation)
        #expect(
          code.map(codes.contains) == true,
          "the client (\(client)) closed with \(code.map { "\($0)" } ?? "no code"), not \(codes)",
          sourceLocation: sourceLocation)
        clientEnd = expected
      }
      switch clientEnd {
      case .closed(let code):
        #expect(outcome.clientError == nil, "\(client)", sourceLocation: sourceLocation)
        #expect(outcome.closure?.code == code, "\(client)", sourceLocation: sourceLocation)
      case .failed(let failure):
        #expect(
          outcome.clientError.map { failure.matches($0) } == true,
          "\(client): \(outcome.clientError.map { "\($0)" } ?? "no error"), expected \(failure)",
          sourceLocation: sourceLocation)
      case .any:
        break
      }
    }
  }
#endif
