import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {
  // MARK: - Downloads

  /// Downloads the endpoint's response body to a file, streaming it to disk as it arrives,
  /// so memory stays flat whatever the size.
  ///
  /// ```swift
  /// let poster = FileManager.default.temporaryDirectory.appendingPathComponent("heat.jpg")
  /// for try await event in client.download(MovieApi.poster(path: "/heat.jpg"), to: poster) {
  ///   if case .progress(let progress) = event { print(progress.fraction ?? 0) }
  /// }
  /// ```
  ///
  /// The body is written to a hidden file beside `destination` and renamed over it in one
  /// step once complete, so `destination` never holds a partial file. On a status outside
  /// the endpoint's acceptable codes (``HTTPError/unacceptableStatus(_:)``, with the start of
  /// the error body), any failure, or cancellation, no file is left behind. Middleware
  /// applies as to any request; a retried download starts again from zero.
  ///
  /// - Parameters:
  ///   - endpoint: What to download; its `Response` type is not used.
  ///   - destination: A file URL in an existing directory; an existing file there is
  ///     replaced. Anything else fails with ``HTTPError/invalidRequest(reason:)`` and sends
  ///     nothing.
  ///   - options: Deadline and size limit; none by default.
  public nonisolated func download<E: Endpoint>(
    _ endpoint: E, to destination: URL, options: TransferOptions = TransferOptions()
  ) -> Transfer<DownloadedFile> {
    Transfer { progress throws(HTTPError) in
      let request = try self.urlRequest(for: endpoint)
      let file = try DownloadFile(destination: destination, progress: progress)
      do throws(HTTPError) {
        let response = try await self.transfer(
          endpoint, request: request, options: options, receiver: file, download: true)
        try file.commit()
        return DownloadedFile(url: destination, response: response)
      } catch {
        file.discard()
        throw error
      }
    }
  }

  // MARK: - Uploads

  /// Sends the endpoint's body — `.data`, `.file` (streamed from disk), a multipart form —
  /// reporting how much of it has gone out, and decodes the answer as ``send(_:)`` does.
  ///
  /// ```swift
  /// let upload = Request<EmptyResponse>(method: .post, path: "uploads", body: .file(videoURL))
  /// for try await event in client.upload(upload) {
  ///   if case .progress(let progress) = event { print(progress.completedBytes) }
  /// }
  /// ```
  ///
  /// - Parameter options: Deadline and the answer's size limit; by default no deadline and
  ///   the client's ``Configuration/maximumResponseBytes``.
  public nonisolated func upload<E: Endpoint>(_ endpoint: E, options: TransferOptions? = nil)
    -> Transfer<DecodedResponse<E.Response>>
  {
    let options =
      options ?? TransferOptions(maximumBytes: configuration.maximumResponseBytes)
    return Transfer { progress throws(HTTPError) in
      let request = try self.urlRequest(for: endpoint)
      let answer = CollectedBody(expectedBytes: request.bodyLength, progress: progress)
      var response = try await self.transfer(
        endpoint, request: request, options: options, receiver: answer)
      response.body = answer.body
      return try self.decoded(endpoint, from: response)
    }
  }

  // MARK: - Streamed exchanges

  /// Runs a streamed exchange through the middleware, the concurrency limits and the
  /// transport: the head and body of an acceptable response go to `receiver` as they
  /// arrive; any other status throws ``HTTPError/unacceptableStatus(_:)``.
  nonisolated func transfer<E: Endpoint>(
    _ endpoint: E, request: URLRequest, options: TransferOptions,
    receiver: any TransferReceiver, download: Bool = false
  ) async throws(HTTPError) -> HTTPResponse {
    let acceptable = acceptableStatusCodes(for: endpoint)
    do throws(HTTPError) {
      let response = try await throughMiddleware(
        endpoint, request: request, timeout: options.timeout, events: nil
      ) { request, timeout, credentials throws(HTTPError) in
        try await self.streamed(
          request, timeout: timeout, options: options, credentials: credentials,
          gate: StatusGate(acceptable: acceptable, receiver: receiver), download: download)
      }
      guard acceptable.contains(response.status) else { throw .unacceptableStatus(response) }
      return response
    } catch {
      throw Credentials(names: redactedNames).applied(to: error)
    }
  }

  /// One streamed attempt: within the limits and the deadline. Returns the head, with the
  /// start of the body when the status was not acceptable, carrying the request's
  /// credential rules.
  private nonisolated func streamed(
    _ request: URLRequest, timeout: Duration?, options: TransferOptions,
    credentials credentialNames: Set<String>, gate: StatusGate, download: Bool
  ) async throws(HTTPError) -> HTTPResponse {
    let credentials = Credentials(names: credentialNames, request: request)
    do throws(HTTPError) {
      guard !Task.isCancelled else { throw .cancelled }
      let transport = self.transport
      let run = { @Sendable () async throws(HTTPError) -> HTTPResponse in
        download
          ? try await transport.download(request, to: gate)
          : try await transport.stream(request, to: gate)
      }
      let context = TransportContext(
        maximumBytes: options.maximumBytes,
        idleTimeout: options.idleTimeout ?? configuration.idleTimeout,
        credentialNames: credentialNames)
      var response = try await limited(request, context: context) {
        () async throws(HTTPError) in
        guard let timeout else { return try await run() }
        return try await Deadline.run(until: .now + timeout, run)
      }
      response.body = gate.errorBody
      response.requestURL = request.url
      response.credentials = credentials
      return response
    } catch {
      throw credentials.applied(to: error)
    }
  }
}

/// An upload's answer, collected in memory, and the upload's progress reported on.
final class CollectedBody: TransferReceiver {
  private let expectedBytes: Int64
  private let progress: @Sendable (TransferProgress) -> Void
  private let collected = Locked(Data())

  /// Collects an answer to an upload of `expectedBytes`.
  init(expectedBytes: Int64, progress: @escaping @Sendable (TransferProgress) -> Void) {
    self.expectedBytes = expectedBytes
    self.progress = progress
  }

  var body: Data { collected.withLock { $0 } }

  func sent(_ bytes: Int64, of expected: Int64?) {
    progress(TransferProgress(completedBytes: bytes, expectedBytes: expected ?? expectedBytes))
  }

  func received(head: HTTPResponse) throws(HTTPError) {
    collected.withLock { $0 = Data() }
  }

  func received(_ chunk: Data) throws(HTTPError) {
    collected.withLock { $0.append(chunk) }
  }
}
