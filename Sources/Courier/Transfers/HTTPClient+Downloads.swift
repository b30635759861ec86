import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {
  // MARK: - Downloads

  /// Downloads the endpoint's response body to a file, streaming it to disk as it arrives,
  /// so memory stays flat whatever the size, and continuing where it stopped when the
  /// connection drops.
  ///
  /// ```swift
  /// let poster = FileManager.default.temporaryDirectory.appendingPathComponent("heat.jpg")
  /// for try await event in client.download(MovieApi.poster(path: "/heat.jpg"), to: poster) {
  ///   if case .progress(let progress) = event { print(progress.fraction ?? 0) }
  /// }
  /// ```
  ///
  /// The body is written to a hidden file beside `destination` and renamed over it in one
  /// step once complete, so `destination` never holds a partial file; its size must be the
  /// length the server announced. On a status outside the endpoint's acceptable codes
  /// (``HTTPError/unacceptableStatus(_:)``, with the start of the error body), any failure,
  /// or cancellation, no file is left behind — unless ``TransferOptions/resumeData`` asks
  /// to keep it. A `206` to a request that asked for no range is not the whole file: it
  /// fails with ``HTTPError/transport(_:)`` (`badServerResponse`).
  ///
  /// **Resuming.** When the connection drops after part of the body arrived, and the
  /// response carried a validator (a strong `ETag`, or `Last-Modified`) and no content
  /// encoding, the download asks for the rest (`Range: bytes=N-` with `If-Range`), up to
  /// ``TransferOptions/maximumResumeAttempts`` times: a `206` whose `Content-Range` continues the
  /// kept bytes is appended to them; a `200` (the resource changed, or ranges are not
  /// served) starts again from zero, which ``TransferProgress/restarts`` counts; a `416`
  /// either confirms the kept bytes are the whole body or starts again. Middleware applies
  /// to each request; a retry by ``RetryPolicy`` starts again from zero.
  ///
  /// - Parameters:
  ///   - endpoint: What to download; its `Response` type is not used.
  ///   - destination: A file URL in an existing directory that can be written; an existing
  ///     file there is replaced. Anything else fails with
  ///     ``HTTPError/invalidRequest(reason:)`` and sends nothing.
  ///   - options: Deadline, size limit and resuming; no deadline or limit by default.
  public nonisolated func download<E: Endpoint>(
    _ endpoint: E, to destination: URL, options: TransferOptions = TransferOptions()
  ) -> Transfer<DownloadedFile> {
    download(endpoint, to: destination, resumingFrom: nil, options: options)
  }

  /// Continues a download from the ``DownloadResumeData`` an earlier one handed back — in
  /// this process or another, from the same URL or a fresh one (`endpoint`) — and
  /// otherwise behaves as ``download(_:to:options:)``.
  ///
  /// ```swift
  /// let data = try JSONDecoder().decode(DownloadResumeData.self, from: saved)
  /// let file = try await client.download(MovieApi.trailer(id: 42), to: url, resumingFrom: data)
  ///   .finished()
  /// ```
  ///
  /// The first request asks for the bytes after the partial file's (`Range`), on condition
  /// that the representation is still the one they came from (`If-Range` with the
  /// validator): a changed file is sent whole and the download starts from zero, never
  /// spliced. A partial file that is missing or of another size fails with
  /// ``HTTPError/invalidRequest(reason:)``, sending nothing; a range answer that does not
  /// continue it (another `Content-Range` start or total, another `ETag` or `Last-Modified`)
  /// fails with ``HTTPError/transport(_:)`` (`badServerResponse`).
  public nonisolated func download<E: Endpoint>(
    _ endpoint: E, to destination: URL, resumingFrom resumeData: DownloadResumeData?,
    options: TransferOptions = TransferOptions()
  ) -> Transfer<DownloadedFile> {
    Transfer { progress, run throws(HTTPError) in
      let request = try self.builder.request(for: endpoint)
      // Checked before the first attempt, which otherwise meets a deadline already past.
      try Exchange.check(
        timeout: options.timeout,
        idleTimeout: options.idleTimeout ?? self.configuration.idleTimeout,
        maximumBytes: options.maximumBytes, bufferSize: options.bufferSize)
      guard options.maximumResumeAttempts >= 0 else {
        throw .invalidRequest(
          reason: "maximumResumeAttempts is \(options.maximumResumeAttempts); 0 is never")
      }
      let file = try DownloadFile(
        destination: destination, resumingFrom: resumeData, progress: progress)
      // A loop that breaks out leaves no partial file, unless it is kept for resuming.
      if options.resumeData == nil { try run.onAbandon { file.discard() } }
      var exchange = self.exchange(for: endpoint, options: options, use: .download(file))
      exchange.received = { file.received($0, of: $1) }
      // The caller's own range request is theirs: it is not continued.
      let callerRange = request.head.value(forHTTPHeaderField: "Range") != nil
      let resumes = callerRange ? 0 : options.maximumResumeAttempts
      file.state.withLock { $0.callerRange = callerRange }
      let started = ContinuousClock.now
      var continuations = 0
      while true {
        var attempt = request
        if let conditions = file.resumeConditions() {
          for field in conditions {
            attempt.head.setValue(field.value, forHTTPHeaderField: field.name)
          }
        }
        // The deadline is the whole download's: each continuation gets what is left of it.
        let left = options.timeout.map { $0 - (ContinuousClock.now - started) }
        exchange.timeout = left
        var restart = false
        do throws(HTTPError) {
          if let left, left <= .zero { throw .timedOut }
          return try await self.perform(endpoint, exchange, request: attempt) {
            response throws(HTTPError) in
            if response.status == 416, attempt.head.value(forHTTPHeaderField: "Range") != nil {
              guard file.isComplete(after: response) else {
                restart = true
                throw .unacceptableStatus(response)
              }
            } else if !exchange.acceptable.contains(response.status) {
              throw .unacceptableStatus(response)
            }
            try file.commit()
            return DownloadedFile(url: destination, response: response)
          }
        } catch {
          let overdue = options.timeout.map { ContinuousClock.now - started >= $0 } ?? false
          if restart || (file.isResumable(error) && file.canResume), !overdue, !Task.isCancelled,
            continuations < resumes
          {
            continuations += 1
            if restart { file.restart() }
            continue
          }
          let url = self.credentialRule.describe(request.url)
          if let keep = options.resumeData, let data = file.keptForResuming(url: url) {
            keep(data)
          } else {
            file.discard()
          }
          throw error
        }
      }
    }
  }
}
