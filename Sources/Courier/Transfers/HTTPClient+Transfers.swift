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
      let request = try self.builder.request(for: endpoint)
      let file = try DownloadFile(destination: destination, progress: progress)
      var exchange = self.exchange(for: endpoint, options: options, use: .download(file))
      exchange.progress = { file.report($0) }
      do throws(HTTPError) {
        return try await self.perform(endpoint, exchange, request: request) {
          response throws(HTTPError) in
          guard exchange.acceptable.contains(response.status) else {
            throw .unacceptableStatus(response)
          }
          try file.commit()
          return DownloadedFile(url: destination, response: response)
        }
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
  /// - Parameters:
  ///   - endpoint: The request, whose ``Endpoint/body`` is what goes up.
  ///   - options: Deadline and the answer's size limit; by default no deadline and the
  ///     client's ``Configuration/maximumResponseBytes``.
  public nonisolated func upload<E: Endpoint>(_ endpoint: E, options: TransferOptions? = nil)
    -> Transfer<DecodedResponse<E.Response>>
  {
    let options =
      options ?? TransferOptions(maximumBytes: configuration.maximumResponseBytes)
    return Transfer { progress throws(HTTPError) in
      let request = try self.builder.request(for: endpoint)
      let length = request.body?.length
      var exchange = self.exchange(for: endpoint, options: options, use: .collect)
      exchange.progress = { report in
        if case .sent(let bytes, let expected) = report {
          progress(TransferProgress(completedBytes: bytes, expectedBytes: expected ?? length))
        }
      }
      return try await self.perform(endpoint, exchange, request: request) {
        response throws(HTTPError) in
        try self.decoded(endpoint, from: response)
      }
    }
  }

  /// The exchange of a transfer: `options`' limits, the client's idle timeout where they
  /// name none.
  nonisolated func exchange<E: Endpoint>(
    for endpoint: E, options: TransferOptions, use: Exchange.Use
  ) -> Exchange {
    Exchange(
      use: use, timeout: options.timeout,
      idleTimeout: options.idleTimeout ?? configuration.idleTimeout,
      maximumBytes: options.maximumBytes, bufferSize: options.bufferSize,
      acceptable: acceptableStatusCodes(for: endpoint))
  }
}
