import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a hostile server tries on the engine: answers and frames that would make the client
/// hold more than its limits say.
extension ChannelWebSocketTests {
  @Test("Empty messages count against the read-ahead: a server cannot queue endless ones")
  func emptyMessagesFillTheReadAhead() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel, options: options(readAhead: 1024))
    for _ in 0..<10_000 { channel.push(WebSocketFrame(opcode: .text)) }
    // Two bytes each on the wire: reading stops with the read-ahead full, not once all
    // 10,000 wait in memory.
    await eventually {
      connection.engine.state.withLock { $0.roomWaiter != nil } || channel.isReading
    }
    #expect(!channel.isReading)
    #expect(connection.engine.state.withLock { $0.inbox.count } < 100)
    #expect(try await connection.receive() == .text(""))
    connection.cancel()
  }

  @Test("Empty messages within the read-ahead all arrive, in order (the good path beside it)")
  func emptyMessagesArrive() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    for index in 0..<1000 {
      channel.push(WebSocketFrame(opcode: index.isMultiple(of: 2) ? .text : .binary))
    }
    channel.push(WebSocketFrame(opcode: .text, payload: Array("last".utf8)))
    for index in 0..<1000 {
      let expected: WebSocketMessage = index.isMultiple(of: 2) ? .text("") : .binary(Data())
      #expect(try await connection.receive() == expected)
    }
    #expect(try await connection.receive() == .text("last"))
    connection.cancel()
  }
}
