import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension StubTransport {
  /// This stub with a route that accepts WebSocket upgrades at `path` and runs `server` as
  /// the server of each connection, in memory: test your WebSocket code without a network.
  ///
  /// ```swift
  /// let stub = StubTransport().onWebSocket("/rooms/42") { socket in
  ///   try await socket.send(.text("welcome"))
  ///   try await socket.echoUntilClosed()
  /// }
  /// let client = HTTPClient(baseURL: URL(string: "wss://chat.test")!, transport: stub)
  /// let socket = try await client.webSocket(ChatApi.room(42))
  /// ```
  ///
  /// `subprotocol` is the one the server picks when the client offers it.
  public func onWebSocket(
    _ path: String, subprotocol: String? = nil,
    _ server: @escaping @Sendable (StubWebSocket) async throws -> Void
  ) -> StubTransport {
    adding(Route(method: .get, path: path, answer: .webSocket(subprotocol: subprotocol, server)))
  }

  /// Connects to this stub in memory, as a client connects to a server: the far end reads
  /// the request the client writes and records it (as ``send(_:options:)`` does). A
  /// WebSocket upgrade that an ``onWebSocket(_:subprotocol:_:)`` route matches is accepted
  /// (`101`, with its `Sec-WebSocket-Accept` and the subprotocol chosen) and the route's
  /// server runs on the connection, in RFC 6455's frames; any other request gets its route's
  /// answer as an HTTP/1.1 response (a 404 when none matches), and the connection closes.
  /// So `HTTPClient.webSocket` reaches a stub as it reaches a server: through Courier's own
  /// WebSocket protocol.
  public func connect(to url: URL, options: TransportOptions) async throws(HTTPError)
    -> any TransportByteChannel
  {
    _ = try ChannelEndpoint(url)
    guard !Task.isCancelled else { throw .cancelled }
    let (client, server) = MemoryChannel.pair()
    Task { await serve(server, at: url) }
    return client
  }

  /// The server's end of a connection to `url`: reads a request, records it, answers it.
  private func serve(_ channel: MemoryChannel, at url: URL) async {
    var parser = LoopbackRequestParser()
    var parsed: LoopbackRequest?
    do {
      while parsed == nil {
        guard let bytes = try await channel.read() else { return channel.close() }
        parser.append(ArraySlice(bytes))
        parsed = try parser.nextRequest()?.request
      }
    } catch {
      return channel.close()
    }
    guard let parsed else { return }
    let origin = (try? WebSocketHandshake.webSocketURL(for: url)) ?? url
    let target = URL(string: parsed.target, relativeTo: origin)?.absoluteURL
    var request = URLRequest(url: target ?? origin)
    request.httpMethod = parsed.method
    for field in parsed.headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
    recorder.withLock { $0.append(request) }
    guard case .webSocket(let subprotocol, let server) = answer(for: request),
      let key = try? LoopbackResponse.webSocketKey(method: parsed.method, headers: parsed.headers)
    else { return await reply(to: request, on: channel) }
    let offered = parsed.headers.values(for: "Sec-WebSocket-Protocol").flatMap {
      $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
    let chosen = subprotocol.flatMap { offered.contains($0) ? $0 : nil }
    let accepted = LoopbackResponse.upgradeHead(key: key, subprotocol: chosen)
    guard (try? await channel.write(accepted)) != nil else { return channel.close() }
    let socket = StubWebSocket(channel: channel)
    let rest = parser.takeRemainder() ?? []
    async let reading: Void = socket.read(after: rest)
    do {
      try await server(socket)
      await socket.handlerReturned()
    } catch {
      socket.drop()
    }
    await reading
  }

  /// Writes the answer of `request`'s route as an HTTP/1.1 response and closes the
  /// connection; a route that fails with an error fails the client's read with it.
  private func reply(to request: URLRequest, on channel: MemoryChannel) async {
    var options = TransportOptions()
    options.collectsBody = true
    options.bufferSize = .max
    do throws(HTTPError) {
      let response = try await respond(to: request, body: nil, options: options)
      let body = try await response.body.collect()
      var bytes = LoopbackResponse.head(
        status: response.head.status, headers: response.head.headers,
        contentLength: body.count, chunked: false, closes: true)
      bytes.append(body)
      try await channel.write(bytes)
      channel.close()
    } catch {
      channel.close(failing: error)
    }
  }
}
