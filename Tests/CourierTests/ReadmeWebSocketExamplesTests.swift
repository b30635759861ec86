import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// The WebSocket example, once the README's and now the article "WebSockets"'s, compiled and
/// run against an in-memory chat server.
@Suite("README WebSocket example")
struct ReadmeWebSocketExamplesTests {
  // `ChatApi` and `ChatLine`, the snippet's first types, are in Tests/Support/ArticleChat.swift.

  @Test("the chat example as the README shows it")
  func chat() async throws {
    let printed = Locked<[String]>([])
    func print(_ line: String) { printed.withLock { $0.append(line) } }
    let stub = StubTransport().onWebSocket("/rooms/42", subprotocol: "chat.v2") { socket in
      try await socket.send(.text(#"{"from":"bob","text":"hi ann"}"#))
      _ = await socket.receiveMessage()  // ann's hello
      try await socket.send(.text(#"{"from":"bob","text":"bye"}"#))
      _ = await socket.receiveMessage()  // the close
    }
    let chat = HTTPClient(baseURL: URL(string: "wss://chat.example.com")!, transport: stub)
    // The article's snippet, from here.
    let socket = try await chat.webSocket(ChatApi.room(42), subprotocols: ["chat.v2"])
    // or send("text"), send(data):
    try await socket.send(json: ChatLine(from: "ann", text: "hello"))
    for try await line in socket.messages(as: ChatLine.self) {  // or socket.messages
      print("\(line.from): \(line.text)")
      if line.text == "bye" { break }
    }
    await socket.close(.normalClosure, reason: "done")
    // To here.
    #expect(socket.subprotocol == "chat.v2")
    #expect(printed.withLock { $0 } == ["bob: hi ann", "bob: bye"])
  }
}
