import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// What the server hears when the client closes.
extension WebSocketClientTests {
  @Test(
    "A close code no endpoint may send goes out as 1000, with the reason; one it may, as given",
    arguments: [
      (0, 1000), (999, 1000), (1004, 1000), (1005, 1000), (1006, 1000), (1015, 1000),
      (2999, 1000), (5000, 1000), (1001, 1001), (1014, 1014), (3000, 3000), (4999, 4999),
    ])
  func closeCodeSent(code: Int, sent: Int) async throws {
    let heard = Locked<WebSocketClosure?>(nil)
    let stub = StubTransport().onWebSocket("/room") { socket in
      _ = await socket.receiveMessage()  // nil: the client's close
      heard.withLock { $0 = socket.closeFrame }
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "room"), settings: .init(pingInterval: nil))
    await socket.close(WebSocketCloseCode(rawValue: UInt16(code)), reason: "bye")
    #expect(
      heard.withLock { $0 }
        == WebSocketClosure(code: WebSocketCloseCode(rawValue: UInt16(sent)), reason: "bye"))
  }
}
