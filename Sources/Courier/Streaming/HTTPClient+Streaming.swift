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
  /// - Throws: ``HTTPError`` before the body: `invalidRequest`, `transport`, `timedOut`,
  ///   `cancelled`, or `unacceptableStatus` with the start of the error body. Reading the
  ///   stream throws what ends the body early.
  public nonisolated func bytes<E: Endpoint>(
    _ endpoint: E, options: TransferOptions = TransferOptions()
  ) async throws(HTTPError) -> ByteStream {
    try await bytes(endpoint, request: try urlRequest(for: endpoint), options: options)
  }

  /// Streams a built request: the transfer runs in a task that the stream owns.
  nonisolated func bytes<E: Endpoint>(
    _ endpoint: E, request: URLRequest, options: TransferOptions
  ) async throws(HTTPError) -> ByteStream {
    let buffer = ChunkBuffer(memoryLimit: options.bufferSize)
    let source = StreamSource(buffer: buffer)
    let receiver = StreamReceiver(buffer: buffer)
    let failure = Locked<HTTPError?>(nil)
    let head = await withTaskCancellationHandler {
      await receiver.waitForHead {
        source.run(
          Task {
            do throws(HTTPError) {
              _ = try await self.transfer(
                endpoint, request: request, options: options, receiver: receiver)
              buffer.finish(.success(()))
            } catch {
              failure.withLock { $0 = error }
              buffer.finish(.failure(error))
            }
            receiver.ended()
          })
      }
    } onCancel: {
      source.cancel()
    }
    guard let head else { throw failure.withLock { $0 } ?? .cancelled }
    return ByteStream(response: head, source: source)
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
  /// seen, after the delay the stream asked for (`retry:`) or the policy's. The sequence
  /// ends on a 204, or when the stream ends without reconnection; it throws on any status
  /// but 200 and 204 or a response that is not `text/event-stream` (neither is retried),
  /// and ``HTTPError/cancelled`` when the loop's task is cancelled.
  public nonisolated func events<E: Endpoint>(
    _ endpoint: E, reconnection: ReconnectionPolicy = .default,
    options: TransferOptions = TransferOptions()
  ) -> ServerSentEvents {
    let client = self
    return ServerSentEvents(reconnection: reconnection) {
      (lastEventID: String) async throws(HTTPError) -> ByteStream in
      var request = try client.urlRequest(for: endpoint)
      request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
      request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
      if !lastEventID.isEmpty {
        request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID")
      }
      return try await client.bytes(endpoint, request: request, options: options)
    }
  }
}
