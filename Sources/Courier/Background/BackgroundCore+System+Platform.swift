// Apple platforms only: FoundationNetworking has no background sessions, and there
// BackgroundSession runs its transfers in the process (BackgroundCore).
#if !canImport(FoundationNetworking)
  import Foundation

  extension BackgroundCore {
    /// The identifier's background session, made on first use; `client`'s response limit
    /// applies to uploads started by an earlier Courier, whose tasks do not carry their own.
    func system(for client: HTTPClient) -> SystemBackground {
      systemEngine.withLock { engine in
        if let made = engine as? SystemBackground { return made }
        let made = SystemBackground(identifier: identifier, core: self, client: client)
        engine = made
        return made
      }
    }

  }

  /// A background `URLSession` (`URLSessionConfiguration.background(withIdentifier:)`) whose
  /// tasks the system carries on while the app is suspended or terminated. Each task's
  /// `taskDescription` holds its ``BackgroundTaskDescription`` as JSON (the transfer, no
  /// credential, and its size limit), so that a relaunched app's session maps the tasks the
  /// system hands back to their transfers and limits.
  final class SystemBackground: NSObject, URLSessionDownloadDelegate, URLSessionDataDelegate,
    @unchecked Sendable
  {
    // `@unchecked Sendable`: `session` is set once in `init`; everything else that changes
    // is in `state`, a `Locked`.
    private struct State: Sendable {
      /// An upload's answer so far, by task.
      var bodies: [Int: Data] = [:]
      /// A failure decided before the task completes (a destination that cannot be
      /// written, a body over the limit, a refused status), by task.
      var failures: [Int: HTTPError] = [:]
    }

    private let core: BackgroundCore
    /// The client's `maximumResponseBytes`: the limit of an upload an earlier Courier started.
    private let clientLimit: Int?
    private let state = Locked(State())
    private let delivery = BackgroundDelivery()
    private var session: URLSession!

    init(identifier: String, core: BackgroundCore, client: HTTPClient) {
      self.core = core
      clientLimit = client.configuration.maximumResponseBytes
      super.init()
      let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
      configuration.sessionSendsLaunchEvents = true
      session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    // MARK: Starting, listing, cancelling

    /// Starts a download whose body may have `maximumBytes` (`nil`: no limit).
    func download(
      _ request: URLRequest, _ transfer: BackgroundTransfer, resumingFrom resumeData: Data?,
      maximumBytes: Int?
    ) {
      let task =
        resumeData.map { session.downloadTask(withResumeData: $0) }
        ?? session.downloadTask(with: request)
      // Resumed from the system's data, the task asks for the rest itself, and must still
      // end with the whole file; only a Range of the caller's own (resumed or not) wants a
      // part.
      let callerRange = request.value(forHTTPHeaderField: "Range") != nil
      start(
        task,
        BackgroundTaskDescription(
          transfer: transfer, maximumBytes: maximumBytes, callerRange: callerRange))
    }

    /// Starts an upload whose answer may have `maximumBytes` (`nil`: no limit).
    func upload(
      _ request: URLRequest, from file: URL, _ transfer: BackgroundTransfer, maximumBytes: Int?
    ) {
      let task = session.uploadTask(with: request, fromFile: file)
      start(task, BackgroundTaskDescription(transfer: transfer, maximumBytes: maximumBytes))
    }

    private func start(_ task: URLSessionTask, _ description: BackgroundTaskDescription) {
      task.taskDescription = description.text
      task.resume()
    }

    func transfers() async -> [BackgroundTransfer] {
      await session.allTasks.compactMap { description(of: $0)?.transfer }
        .sorted { $0.started < $1.started }
    }

    func cancel(_ id: UUID) {
      Task {
        for task in await session.allTasks where description(of: task)?.transfer.id == id {
          task.cancel()
        }
      }
    }

    /// What `task` carries: its transfer and size limit. A task an earlier Courier started
    /// carries its transfer alone: a download then has no limit, an upload the client's.
    func description(of task: URLSessionTask) -> BackgroundTaskDescription? {
      let clientLimit = clientLimit
      return BackgroundTaskDescription(text: task.taskDescription) { transfer in
        TransferOptions.responseLimit(
          of: transfer.kind, options: nil, maximumResponseBytes: clientLimit)
      }
    }

    // MARK: The session's delegate

    func urlSession(
      _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
      totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
      guard let description = description(of: downloadTask) else { return }
      let transfer = description.transfer
      if let limit = description.maximumBytes, totalBytesWritten > Int64(limit) {
        // An error answer keeps its status, as in the process (its body goes with the file
        // the system deletes on cancelling).
        let failure =
          Self.errorStatus(of: downloadTask).map(HTTPError.unacceptableStatus)
          ?? .responseTooLarge(limit: limit)
        state.withLock { $0.failures[downloadTask.taskIdentifier] = failure }
        downloadTask.cancel()
        return
      }
      let expected = totalBytesExpectedToWrite > 0 ? totalBytesExpectedToWrite : nil
      core.hub.post(
        .progress(
          transfer, TransferProgress(completedBytes: totalBytesWritten, expectedBytes: expected)))
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
      totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
      guard let transfer = description(of: task)?.transfer, transfer.kind == .upload else {
        return
      }
      let expected = totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil
      core.hub.post(
        .progress(
          transfer, TransferProgress(completedBytes: totalBytesSent, expectedBytes: expected)))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      guard let limit = description(of: dataTask)?.maximumBytes else {
        state.withLock { $0.bodies[dataTask.taskIdentifier, default: Data()].append(data) }
        return
      }
      let id = dataTask.taskIdentifier
      // Appended in place (a copy taken out and put back copied the whole body each time).
      let start = state.withLock { state -> Data? in
        guard state.failures[id] == nil else { return nil }  // over already: dropped
        state.bodies[id, default: Data()].append(data)
        guard let body = state.bodies[id], body.count > limit else { return nil }
        state.bodies[id] = nil
        return body.prefix(Exchange.errorBodyLimit).withUnsafeBytes { Data($0) }
      }
      guard let start else { return }
      // An error answer over the limit keeps its status and the start of its body, as in
      // the process.
      let failure =
        Self.errorStatus(of: dataTask).map { response in
          var response = response
          response.body = start
          return HTTPError.unacceptableStatus(response)
        } ?? .responseTooLarge(limit: limit)
      state.withLock { $0.failures[id] = failure }
      dataTask.cancel()
    }

    /// The file must be moved before this returns (the system deletes it after): to the
    /// destination for an acceptable status; otherwise its start becomes the error's body.
    func urlSession(
      _ session: URLSession, downloadTask: URLSessionDownloadTask,
      didFinishDownloadingTo location: URL
    ) {
      guard let description = description(of: downloadTask) else { return }
      let transfer = description.transfer
      let id = downloadTask.taskIdentifier
      var response = Self.response(of: downloadTask)
      // The system may have written it while the app was suspended (or terminated: the limit
      // comes from the task's description), so the limit is checked here too.
      let limit = description.maximumBytes
      let size = (try? FileManager.default.attributesOfItem(atPath: location.path)[.size]) as? Int
      // An error answer keeps its status whatever its length, with the start of its body.
      guard (200..<300).contains(response.status) else {
        let handle = try? FileHandle(forReadingFrom: location)
        response.body = (try? handle?.read(upToCount: Exchange.errorBodyLimit)) ?? Data()
        try? handle?.close()
        state.withLock { $0.failures[id] = .unacceptableStatus(response) }
        return
      }
      if let limit, let size, size > limit {
        state.withLock { $0.failures[id] = .responseTooLarge(limit: limit) }
        return
      }
      if let refusal = description.refusal(of: response, received: size ?? 0) {
        state.withLock { $0.failures[id] = refusal }
        return
      }
      do {
        let files = FileManager.default
        if files.fileExists(atPath: transfer.file.path) {
          _ = try files.replaceItemAt(transfer.file, withItemAt: location)
        } else {
          try files.moveItem(at: location, to: transfer.file)
        }
      } catch {
        state.withLock {
          $0.failures[id] = .transport(
            .cannotMoveFile, reason: "the download could not be moved to its destination: \(error)")
        }
      }
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
    ) {
      guard let description = description(of: task) else { return }
      let transfer = description.transfer
      let id = task.taskIdentifier
      let (decided, body) = state.withLock { state in
        defer {
          state.failures[id] = nil
          state.bodies[id] = nil
        }
        return (state.failures[id], state.bodies[id])
      }
      if let decided {
        core.hub.post(.failed(transfer, decided, resumeData: nil))
      } else if let error {
        let failure =
          (error as? URLError)?.code == .cancelled
          ? HTTPError.cancelled : HTTPError(transportFailure: error)
        // What the system offers to continue a download from, as Apple documents it.
        let offered = (error as NSError).userInfo[NSURLSessionDownloadTaskResumeData] as? Data
        core.hub.post(.failed(transfer, failure, resumeData: offered.map { .system($0) }))
      } else {
        var response = Self.response(of: task)
        response.body = body ?? Data()
        // A download's file was judged as it arrived (and moved, when taken).
        let judged = task is URLSessionDownloadTask
        if !judged, let refusal = description.refusal(of: response, received: response.body.count) {
          core.hub.post(.failed(transfer, refusal, resumeData: nil))
        } else if (200..<300).contains(response.status) {
          core.hub.post(.finished(transfer, response))
        } else {
          core.hub.post(.failed(transfer, .unacceptableStatus(response), resumeData: nil))
        }
      }
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
      delivery.delivered()
    }

    /// Returns once the system has said it delivered every event it kept.
    func delivered() async {
      await delivery.wait()
    }

    /// Server trust and client certificates get the system's handling (a background session
    /// has no ``TLSChallengeHandler``); HTTP authentication is answered as on every session
    /// Courier makes, so that URLSession sends no credential from its storage or the URL
    /// (``ChallengeAnswer``). Without this method every challenge got the default handling.
    func urlSession(
      _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
      completionHandler:
        @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
      if TLSChallenge(challenge) != nil { return completionHandler(.performDefaultHandling, nil) }
      completionHandler(ChallengeAnswer.answer(to: challenge).disposition, nil)
    }

    /// The task's answer when the server sent one with a status outside `200..<300`; `nil`
    /// for a success, or when no answer has come (never taken for an error of status 0).
    static func errorStatus(of task: URLSessionTask) -> HTTPResponse? {
      guard let head = task.response as? HTTPURLResponse, !(200..<300).contains(head.statusCode)
      else { return nil }
      return HTTPResponse(head: head)
    }

    static func response(of task: URLSessionTask) -> HTTPResponse {
      (task.response as? HTTPURLResponse).map(HTTPResponse.init(head:)) ?? HTTPResponse(status: 0)
    }
  }
#endif
