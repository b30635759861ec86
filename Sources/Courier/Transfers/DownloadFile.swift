import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a download's body goes: a hidden temporary file next to the destination, renamed
/// over the destination in one step when the body is complete (and its size is what the
/// server announced), kept as the partial file of a resumable download when asked, and
/// deleted on every other path (error, status, cancellation).
///
/// Every download reaches the disk here, one way: the body of each attempt arrives as chunks,
/// written as they come, and those written stay when the attempt fails part-way (the next
/// attempt continues after them). What an attempt adds is decided from its head
/// (``begin(_:)``): the whole body replaces what was here; a
/// `206` that continues exactly where the kept bytes end is appended to them. Only the
/// download's own task writes, commits or discards; progress reports come from the
/// transport's threads and are throttled under a lock.
final class DownloadFile: Sendable {
  struct State {
    /// Bytes of the current attempt, and its expected length.
    var attemptBytes: Int64 = 0
    var attemptExpected: Int64?
    var reportedBytes: Int64 = -1
    var closed = false
    /// Bytes in the file from earlier attempts, which the current attempt continues.
    var kept: Int64 = 0
    /// The representation's validator (a strong `ETag`, else `Last-Modified`), whether its
    /// body was content-encoded (then ranges do not apply), and its whole length.
    var validator: String?
    var encoded = false
    var total: Int64?
    /// Where the file ends after a `206` that continues it: its `Content-Range`'s last byte
    /// and one, which the file must reach exactly, whatever the total.
    var rangeEnd: Int64?
    var restarts = 0
    /// Whether an answer did not fit the kept bytes: the download must not go on.
    var refused = false
    /// Whether the caller's own request asked for a range (its `206` is taken as it is).
    var callerRange = false

    /// The progress to report now, if enough has changed since the last report: every
    /// 0.5 % or 256 KiB, whichever is more, and the end. (Each report wakes the loop, and
    /// URLSession's callbacks keep their chunk alive until they have run, so they must
    /// stay cheap.)
    mutating func due() -> TransferProgress? {
      let completed = kept + attemptBytes
      let expected = total ?? attemptExpected.map { kept + $0 }
      let step = max(256 * 1024, (expected ?? 0) / 200)
      guard completed - reportedBytes >= step || completed == expected || reportedBytes < 0
      else { return nil }
      guard completed != reportedBytes else { return nil }
      reportedBytes = completed
      return TransferProgress(
        completedBytes: completed, expectedBytes: expected, resumedBytes: kept,
        restarts: restarts)
    }
  }

  /// The final place of the file.
  let destination: URL
  /// The file being written.
  let temporaryURL: URL
  private let progress: @Sendable (TransferProgress) -> Void
  let state = Locked(State())

  /// A download to `destination`, reporting progress to `progress`; continuing from
  /// `resumeData` when given.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` when `destination` is not a file URL
  ///   in an existing directory that can be written, or is a directory itself, or when the
  ///   partial file of `resumeData` is missing or does not hold the bytes it says; nothing is
  ///   sent then.
  init(
    destination: URL, resumingFrom resumeData: DownloadResumeData? = nil,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) throws(HTTPError) {
    try Self.check(destination: destination)
    let directory = destination.deletingLastPathComponent()
    self.destination = destination
    temporaryURL = directory.appendingPathComponent(
      ".\(destination.lastPathComponent).\(UUID().uuidString).download")
    self.progress = progress
    if let resumeData {
      try resume(from: resumeData)
    } else {
      try Self.check(canCreate: temporaryURL)
    }
  }

  /// Refuses a directory no file can be made in (read-only, another user's, a file system
  /// that takes none) with ``HTTPError/invalidRequest(reason:)``, by making `file` and
  /// removing it at once: before the request goes, not once the answer has come with
  /// nowhere to put it.
  static func check(canCreate file: URL) throws(HTTPError) {
    let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else {
      let why = String(cString: strerror(errno))
      throw .invalidRequest(
        reason: "the download destination's directory cannot be written "
          + "(\(file.deletingLastPathComponent().path): \(why))")
    }
    close(descriptor)
    unlink(file.path)
  }

  /// Refuses a destination that is not a file URL in an existing directory, or is a
  /// directory itself, with ``HTTPError/invalidRequest(reason:)``.
  static func check(destination: URL) throws(HTTPError) {
    guard destination.isFileURL else {
      throw .invalidRequest(
        reason: "the download destination \(Redaction.url(destination)) is not a file URL")
    }
    let directory = destination.deletingLastPathComponent()
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw .invalidRequest(
        reason: "the download destination's directory does not exist (\(directory.path))")
    }
    if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      throw .invalidRequest(
        reason: "the download destination is a directory (\(destination.path))")
    }
  }

  /// `bytes` of an attempt's body (of `expected`) have been taken for the file: the
  /// download's progress. (A new attempt counts from where the kept bytes end.)
  func received(_ bytes: Int64, of expected: Int64?) {
    let now = state.withLock { state -> TransferProgress? in
      guard !state.closed else { return nil }
      if bytes < state.attemptBytes { state.reportedBytes = -1 }
      state.attemptBytes = bytes
      state.attemptExpected = expected
      return state.due()
    }
    if let now { progress(now) }
  }

  /// Writes the body of an attempt whose head is `head` to the temporary file: appended to
  /// the kept bytes when it is the rest of them, replacing them otherwise. Chunks are written
  /// as they come, and those written stay if the body fails part-way (a resumed attempt
  /// continues after them).
  func write(_ body: TransportResponseBody, head: HTTPResponse) async throws(HTTPError) {
    let appends: Bool
    do throws(HTTPError) {
      appends = try begin(head)
    } catch {
      body.cancel()
      throw error
    }
    let flags = O_WRONLY | O_CREAT | (appends ? O_APPEND : O_TRUNC)
    // Opened under the lock: a file discarded meanwhile (its loop gone) is never made again.
    let opened = state.withLock { $0.closed ? nil : open(temporaryURL.path, flags, 0o600) }
    guard let descriptor = opened else {
      body.cancel()
      throw .cancelled
    }
    guard descriptor >= 0 else {
      body.cancel()
      throw .transport(URLError(.cannotCreateFile))
    }
    defer { close(descriptor) }
    for try await chunk in body {
      guard chunk.withUnsafeBytes({ FileBytes.writeAll($0, to: descriptor) }) else {
        body.cancel()
        throw .transport(URLError(.cannotWriteToFile))
      }
    }
  }

  /// Puts the complete file in place, replacing whatever was at the destination, and
  /// reports its final size.
  ///
  /// - Throws: ``HTTPError/transport(_:)`` (`badServerResponse`) when its size is not the
  ///   length the server announced (`Content-Length`, or the total of a `Content-Range`), or
  ///   does not end where the `Content-Range` of the `206` that continued it ends: never a
  ///   silently wrong file. ``HTTPError/transport(_:)`` (`cannotWriteToFile`, naming the file)
  ///   when the file was deleted while it was written, or its directory removed (not the
  ///   server's doing); `cannotMoveFile` when it cannot be put in place.
  func commit() throws(HTTPError) {
    // Discarded already: the download's loop went away.
    if state.withLock({ $0.closed }) { throw .cancelled }
    if !FileManager.default.fileExists(atPath: temporaryURL.path) {
      // An empty body that never made a file, or a file that went away under the download.
      let written = state.withLock { $0.kept + $0.attemptBytes }
      guard written == 0, FileManager.default.createFile(atPath: temporaryURL.path, contents: nil)
      else {
        discard()
        throw .transport(
          .cannotWriteToFile,
          reason: "the download's file \(temporaryURL.path) was deleted, or its directory "
            + "removed, before the body was complete")
      }
    }
    let size = Self.size(of: temporaryURL)
    let (last, announced) = state.withLock { state -> (TransferProgress?, Int64?) in
      state.closed = true
      // The range's end, unless the file reaches it: then the total (if known) must match.
      let announced = state.rangeEnd.flatMap { $0 == size ? nil : $0 } ?? state.total
      guard state.reportedBytes != size else { return (nil, announced) }
      let progress = TransferProgress(
        completedBytes: size, expectedBytes: state.total ?? size, resumedBytes: state.kept,
        restarts: state.restarts)
      return (progress, announced)
    }
    if let announced, announced != size {
      state.withLock { $0.refused = true }
      discard()
      throw .transport(
        .badServerResponse,
        reason: "the downloaded file has \(size) bytes where the server announced \(announced)")
    }
    if let last { progress(last) }
    guard rename(temporaryURL.path, destination.path) == 0 else {
      let why = String(cString: strerror(errno))
      discard()
      throw .transport(
        .cannotMoveFile, reason: "the downloaded file cannot be put at \(destination.path): \(why)")
    }
  }

  /// Deletes the partial file; later reports are ignored.
  func discard() {
    state.withLock { $0.closed = true }
    try? FileManager.default.removeItem(at: temporaryURL)
  }

  static func size(of url: URL) -> Int64 {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?
      .int64Value ?? 0
  }
}
