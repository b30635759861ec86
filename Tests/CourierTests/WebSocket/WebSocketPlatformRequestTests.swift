import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a platform WebSocket task (URLSession's, on Apple platforms) is given: the request's
/// own fields less those the handshake owns, and the subprotocols offered either way, as
/// CurlTransport's upgrade writes them.
@Suite("The request a platform WebSocket task is given")
struct WebSocketPlatformRequestTests {
  private func head(_ fields: [String: String]) -> URLRequest {
    var request = URLRequest(url: URL(string: "wss://chat.example/room")!)
    for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
    return request
  }

  @Test("fields the handshake owns are dropped, whoever set them; the others go as they are")
  func ownedDropped() throws {
    let given = head([
      "X-Trace": "t1", "Authorization": "Bearer a", "Sec-WebSocket-Key": "x",
      "connection": "close", "Upgrade": "h2c", "Host": "evil.example",
      "Sec-WebSocket-Version": "8", "Sec-WebSocket-Extensions": "permessage-deflate",
    ])
    let (request, offered) = try WebSocketHandshake.platformRequest(given, offering: [])
    #expect(offered.isEmpty)
    #expect(request.allHTTPHeaderFields == ["X-Trace": "t1", "Authorization": "Bearer a"])
    #expect(request.url == given.url)
  }

  @Test("subprotocols in the request's own header are offered after the options' ones")
  func subprotocolsMerged() throws {
    let (request, offered) = try WebSocketHandshake.platformRequest(
      head(["Sec-WebSocket-Protocol": "chat, superchat"]), offering: ["v2"])
    #expect(request.value(forHTTPHeaderField: "Sec-WebSocket-Protocol") == "v2, chat, superchat")
    #expect(offered == ["v2", "chat", "superchat"])
    let none = try WebSocketHandshake.platformRequest(head(["X-A": "1"]), offering: []).request
    #expect(none.value(forHTTPHeaderField: "Sec-WebSocket-Protocol") == nil)
  }

  @Test("the server's choice: one of those offered, either way, and no extension")
  func choiceChecked() throws {
    let offered = ["v2", "chat"]
    #expect(try WebSocketHandshake.chosenSubprotocol(in: [:], offered: offered) == nil)
    let chat: HTTPHeaders = ["Sec-WebSocket-Protocol": "chat"]
    #expect(try WebSocketHandshake.chosenSubprotocol(in: chat, offered: offered) == "chat")
    let refused: [HTTPHeaders] = [
      ["Sec-WebSocket-Protocol": "evil"], ["Sec-WebSocket-Extensions": "permessage-deflate"],
    ]
    for headers in refused {
      let error = #expect(throws: HTTPError.self) {
        try WebSocketHandshake.chosenSubprotocol(in: headers, offered: offered)
      }
      guard case .transport(let urlError) = error else {
        Issue.record("expected a transport error, got \(String(describing: error))")
        continue
      }
      #expect(urlError.code == .badServerResponse)
    }
  }

  @Test("a subprotocol in the request's header that is no token, or offered twice, is refused")
  func badSubprotocolRefused() {
    for (header, offered) in [("chat room", [String]()), ("v2", ["v2"]), ("a/b", [])] {
      let error = #expect(throws: HTTPError.self) {
        try WebSocketHandshake.platformRequest(
          head(["Sec-WebSocket-Protocol": header]), offering: offered)
      }
      #expect(error?.invalidRequestReason?.contains("subprotocol") == true, "\(header)")
    }
  }
}
