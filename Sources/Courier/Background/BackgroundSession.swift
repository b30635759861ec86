import Foundation

/// Downloads and uploads that report to whoever reads the session's events — also a later
/// instance with the same identifier — and whose identities an app can persist: the shape of
/// URLSession's background sessions, with Courier's endpoints, middleware, credential rule
/// and typed errors.
///
/// ```swift
/// let transfers = BackgroundSession(identifier: "com.example.trailers", client: client)
/// let trailer = try await transfers.download(MovieApi.trailer(id: 42), to: trailerFile)
/// save(trailer)  // Codable: map it back to the movie after a relaunch
///
/// for await event in transfers.events {
///   switch event {
///   case .progress(let transfer, let progress): show(transfer.id, progress.fraction)
///   case .finished(let transfer, _): play(transfer.file)
///   case .failed(let transfer, let error, let resumeData): retry(transfer, error, resumeData)
///   }
/// }
/// ```
///
/// - Each transfer runs through the client's pipeline (its base URL, headers, middleware,
///   limits and credential rule): a download streams to a hidden file beside its destination
///   and is moved there whole (see ``HTTPClient/download(_:to:options:)``); an upload sends
///   its endpoint's `.file` body.
/// - Sessions with the same identifier share their transfers within a process: one made
///   later (a screen reopened, a relaunched flow) lists the transfers an earlier one started
///   and reads their events. Events that come while nothing reads wait for the first reader
///   (of a transfer's progress, only the latest waits).
/// - **Platforms.** On Apple platforms the session is a background `URLSession`: the system
///   carries the transfers on while the app is suspended or terminated, the middleware only
///   shapes each request before the system takes it, and redirects follow URLSession's own
///   rules. On Linux the transfers run in the process, through the whole pipeline, for the
///   life of the process. See the "Background transfers" article.
public final class BackgroundSession: Sendable {
  /// The session's identifier: sessions with the same one share their transfers.
  public let identifier: String
  let core: BackgroundCore
  let client: HTTPClient

  /// A session named `identifier` whose transfers go through `client`; it joins the
  /// transfers of any other session with that identifier in the process.
  public init(identifier: String, client: HTTPClient) {
    self.identifier = identifier
    self.client = client
    core = BackgroundCore.named(identifier)
  }

  /// The events of the session's transfers, as they happen (and those that came while
  /// nothing read them).
  public var events: BackgroundEvents {
    BackgroundEvents(hub: core.hub)
  }

  /// The transfers started and not yet ended (also by an earlier session with the
  /// identifier, or on Apple platforms an earlier launch), oldest first.
  public func transfers() async -> [BackgroundTransfer] {
    #if canImport(FoundationNetworking)
      core.running
    #else
      await core.system(for: client).transfers()
    #endif
  }

  /// Starts downloading the endpoint's response body to `destination` and returns the
  /// transfer's identity at once; its progress and outcome come as ``events``.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)``, sending nothing, for an endpoint with
  ///   a body, a request that cannot be built, or a destination that is not a file URL in an
  ///   existing directory.
  public func download<E: Endpoint>(
    _ endpoint: E, to destination: URL, options: TransferOptions = TransferOptions()
  ) async throws(HTTPError) -> BackgroundTransfer {
    try await download(endpoint, to: destination, resumingFrom: nil, options: options)
  }

  /// Starts a download again from what a failed one offered (its
  /// ``BackgroundEvent/failed(_:_:resumeData:)``): the rest of the body is asked for, on
  /// condition that it is still the same representation, and otherwise the whole of it. The
  /// transfer has a new identity. Resume data of the other kind (the system's, in the
  /// process, or the other way round) is ignored and the download starts from zero.
  ///
  /// From the system's resume data (Apple platforms), the system sends the request it keeps
  /// in that data, as it was first sent: the endpoint's request is still built and put
  /// through the middleware (so that one that fails refuses the resume), but a header it
  /// sets anew, a refreshed token say, is not what goes out.
  ///
  /// - Throws: as ``download(_:to:options:)``, and ``HTTPError/invalidRequest(reason:)``
  ///   when Courier's partial file is missing or not the size it says.
  public func download<E: Endpoint>(
    _ endpoint: E, to destination: URL, resumingFrom resumeData: BackgroundResumeData?,
    options: TransferOptions = TransferOptions()
  ) async throws(HTTPError) -> BackgroundTransfer {
    guard endpoint.body == nil else {
      throw .invalidRequest(reason: "a background download is a request without a body")
    }
    try DownloadFile.check(destination: destination)
    let transfer = try started(.download, endpoint, file: destination)
    var options = options
    options.maximumBytes = limit(of: .download, options)
    #if canImport(FoundationNetworking)
      var partial: DownloadResumeData?
      if case .partialFile(let data) = resumeData {
        try DownloadFile.check(resuming: data)
        partial = data
      }
      runDownload(endpoint, transfer, resumingFrom: partial, options: options)
    #else
      let request = try await client.shapedRequest(for: endpoint)
      var system: Data?
      if case .system(let data) = resumeData { system = data }
      core.system(for: client).download(
        request, transfer, resumingFrom: system, maximumBytes: options.maximumBytes)
    #endif
    return transfer
  }

  /// Runs a download in the process, through the client's pipeline.
  private func runDownload<E: Endpoint>(
    _ endpoint: E, _ transfer: BackgroundTransfer, resumingFrom partial: DownloadResumeData?,
    options: TransferOptions
  ) {
    let destination = transfer.file
    core.run(transfer) { [client] report throws(BackgroundCore.Failure) in
      var options = options
      let kept = Locked<DownloadResumeData?>(nil)
      options.resumeData = { data in kept.withLock { $0 = data } }
      do throws(HTTPError) {
        var outcome: DownloadedFile?
        let download = client.download(
          endpoint, to: destination, resumingFrom: partial, options: options)
        for try await event in download {
          switch event {
          case .progress(let progress): report(progress)
          case .completed(let file): outcome = file
          }
        }
        guard let outcome else { throw .cancelled }
        return outcome.response
      } catch {
        throw BackgroundCore.Failure(
          error: error, resumeData: kept.withLock { $0 }.map(BackgroundResumeData.partialFile))
      }
    }
  }

  /// Starts uploading the endpoint's `.file` body and returns the transfer's identity at
  /// once; its progress and the server's answer come as ``events``.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)``, sending nothing, for an endpoint whose
  ///   body is not `.file` (a file can be sent again after a relaunch; data in memory
  ///   cannot), a file that does not exist, or a request that cannot be built.
  public func upload<E: Endpoint>(_ endpoint: E, options: TransferOptions? = nil)
    async throws(HTTPError) -> BackgroundTransfer
  {
    guard case .file(let source, _)? = endpoint.body?.content else {
      throw .invalidRequest(reason: "a background upload sends a file: give it a .file body")
    }
    guard FileManager.default.isReadableFile(atPath: source.path) else {
      throw .invalidRequest(
        reason: "the file to upload, \(source.lastPathComponent), cannot be read")
    }
    let transfer = try started(.upload, endpoint, file: source)
    let limit = limit(of: .upload, options)
    var options = options ?? TransferOptions()
    options.maximumBytes = limit
    #if canImport(FoundationNetworking)
      runUpload(endpoint, transfer, options: options)
    #else
      let request = try await client.shapedRequest(for: endpoint)
      // A link is followed to its file, as for every upload.
      core.system(for: client).upload(
        request, from: source.resolvingSymlinksInPath(), transfer,
        maximumBytes: options.maximumBytes)
    #endif
    return transfer
  }

  /// Runs an upload in the process, through the client's pipeline.
  private func runUpload<E: Endpoint>(
    _ endpoint: E, _ transfer: BackgroundTransfer, options: TransferOptions
  ) {
    core.run(transfer) { [client] report throws(BackgroundCore.Failure) in
      do throws(HTTPError) {
        var outcome: DecodedResponse<E.Response>?
        for try await event in client.upload(endpoint, options: options) {
          switch event {
          case .progress(let progress): report(progress)
          case .completed(let answer): outcome = answer
          }
        }
        guard let outcome else { throw .cancelled }
        return outcome.response
      } catch {
        throw BackgroundCore.Failure(error: error, resumeData: nil)
      }
    }
  }

  /// Cancels `transfer`; its ``BackgroundEvent/failed(_:_:resumeData:)`` event says
  /// ``HTTPError/cancelled``. A transfer that has ended is left alone.
  public func cancel(_ transfer: BackgroundTransfer) {
    #if canImport(FoundationNetworking)
      core.cancel(transfer.id)
    #else
      core.system(for: client).cancel(transfer.id)
    #endif
  }

  /// Calls `completionHandler` on the main actor, once, when the system's events for the
  /// session are in its ``events`` (whether or not anything reads them): the hand-off
  /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` asks for, so that
  /// the system knows the app has taken its transfers' results. Call it from that method with
  /// UIKit's handler as it is: `session.handleEvents { completionHandler() }`.
  ///
  /// On Apple platforms that is once the session's `URLSession` has had
  /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`; in the process (Linux), once every
  /// transfer running has posted its last event.
  @MainActor
  public func handleEvents(completionHandler: @escaping () -> Void) {
    #if canImport(FoundationNetworking)
      let hub = core.hub
      Task { @MainActor in
        await hub.settled()
        completionHandler()
      }
    #else
      // The identifier's URLSession is made again now: the system delivers to it only.
      let system = core.system(for: client)
      Task { @MainActor in
        await system.delivered()
        completionHandler()
      }
    #endif
  }

  /// The size limit of a transfer's response, by the one rule for transfers (a download has
  /// none unless its options give one; an upload's answer, kept in memory, has the client's
  /// unless they do), on both platforms and across a relaunch.
  private func limit(of kind: BackgroundTransfer.Kind, _ options: TransferOptions?) -> Int? {
    TransferOptions.responseLimit(
      of: kind, options: options, maximumResponseBytes: client.configuration.maximumResponseBytes)
  }

  /// The identity of a transfer of `endpoint` about to start, its URL redacted.
  private func started<E: Endpoint>(
    _ kind: BackgroundTransfer.Kind, _ endpoint: E, file: URL
  ) throws(HTTPError) -> BackgroundTransfer {
    let request = try client.urlRequest(for: endpoint)
    let url = client.credentialRule.describe(request.url)
    return BackgroundTransfer(kind: kind, url: url, file: file)
  }
}
