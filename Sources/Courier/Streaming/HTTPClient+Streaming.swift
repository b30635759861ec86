import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {
  // MARK: - Streaming

  /// Sends the endpoint's request and returns once the response head has arrived, with the
  /// body as a ``ByteStream`` of chunks (and ``ByteStream/lines``) read as they arrive.
  ///
  /// ```swift
  /// let stream = try await client.bytes(Request<Data>(path: "exports/movies.ndjson"))
  /// for try await line in stream.lines { print(line) }
  /// ```
  ///
  /// The request goes through the middleware and the concurrency limits like any other,
  /// holding its permits until the body has been read or let go, and reports to the observer
  /// when it starts and then. The middleware sees the response as soon
  /// as its head has arrived, with the body to come in ``HTTPResponse/bodyStream``.
  ///
  /// - Throws: ``HTTPError`` before the body: `invalidRequest`, `transport`, `timedOut`,
  ///   `cancelled`, or `unacceptableStatus` with the start of the error body. Reading the
  ///   stream throws what ends the body early.
  public nonisolated func bytes<E: Endpoint>(
    _ endpoint: E, options: TransferOptions = TransferOptions()
  ) async throws(HTTPError) -> ByteStream {
    try await bytes(endpoint, request: try builder.request(for: endpoint), options: options)
  }

  /// Streams a built request, in the caller's task: the pipeline returns once the head has
  /// arrived, with the body still to come in ``HTTPResponse/bodyStream`` (or, from a
  /// middleware that answered itself, in ``HTTPResponse/body``).
  nonisolated func bytes<E: Endpoint>(
    _ endpoint: E, request: TransportRequest, options: TransferOptions
  ) async throws(HTTPError) -> ByteStream {
    let exchange = self.exchange(for: endpoint, options: options, use: .stream)
    return try await perform(endpoint, exchange, request: request) {
      response throws(HTTPError) in
      guard exchange.acceptable.contains(response.status) else {
        throw .unacceptableStatus(response)
      }
      var head = response
      let body = head.bodyStream ?? TransportResponseBody(head.body)
      head.bodyStream = nil
      head.body = Data()
      return ByteStream(
        response: head, body: body.limited(to: exchange.maximumBytes),
        maximumLineBytes: configuration.maximumResponseBytes)
    }
  }

  /// The endpoint's Server-Sent Events, parsed as they arrive (see
  /// ``ServerSentEventParser``), reconnecting as the ``ReconnectionPolicy`` says when the
  /// stream ends or the connection drops.
  ///
  /// ```swift
  /// for try await event in client.events(Request<Data>(path: "chat/stream")) {
  ///   if event.event == "delta" { print(try event.decode(Delta.self).text, terminator: "") }
  /// }
  /// ```
  ///
  /// Nothing is sent until the loop asks for the first event. Each request asks for
  /// `text/event-stream`, and a reconnection sends `Last-Event-ID` with the last event ID
  /// seen, after the delay the stream asked for (`retry:`) or the policy's; after a
  /// connection that gave no event, at least the policy's (a server that answers `retry: 0`
  /// and closes is not reconnected to in a tight loop). The sequence
  /// ends on a 204, or when the stream ends without reconnection; it throws on any status
  /// but 200 and 204 or a response that is not `text/event-stream` (neither is retried),
  /// and ``HTTPError/cancelled`` when the loop's task is cancelled. Once it has thrown, the
  /// sequence has ended: its iterator gives `nil` after, and sends nothing more.
  ///
  /// An event is held in memory until its blank line, so it is bounded like a body kept in
  /// memory: once the event still being received holds more than
  /// ``Configuration/maximumResponseBytes``, the stream stops and the loop throws
  /// ``HTTPError/responseTooLarge(limit:)`` (not retried). `options.maximumBytes` bounds
  /// each connection's whole stream, and is none by default.
  public nonisolated func events<E: Endpoint>(
    _ endpoint: E, reconnection: ReconnectionPolicy = .default,
    options: TransferOptions = TransferOptions()
  ) -> ServerSentEvents {
    let client = self
    return ServerSentEvents(
      reconnection: reconnection, clock: configuration.clock,
      maximumEventBytes: configuration.maximumResponseBytes
    ) {
      (lastEventID: String) async throws(HTTPError) -> ByteStream in
      var request = try client.builder.request(for: endpoint)
      request.head.setValue("text/event-stream", forHTTPHeaderField: "Accept")
      request.head.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
      if !lastEventID.isEmpty {
        request.head.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID")
      }
      return try await client.bytes(endpoint, request: request, options: options)
    }
  }
}
