import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {
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
    let options = TransferOptions.upload(
      options, maximumResponseBytes: configuration.maximumResponseBytes)
    return Transfer { progress, _ throws(HTTPError) in
      let request = try self.builder.request(for: endpoint)
      let length = request.body?.length
      var exchange = self.exchange(for: endpoint, options: options, use: .collect)
      exchange.transport.uploadProgress = { bytes, expected in
        progress(TransferProgress(completedBytes: bytes, expectedBytes: expected ?? length))
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
