import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a download's body goes: a hidden temporary file next to the destination, renamed
/// over the destination in one step when the body is complete, and deleted on every other
/// path (error, status, cancellation).
///
/// The body arrives either as a file the transport wrote (``ResponseBody/init(file:)``,
/// as ``URLSessionTransport``'s download tasks do), moved here, or as chunks, written here
/// as they come. Only the download's own task writes, commits or discards; progress reports
/// come from the transport's threads and are throttled under a lock.
final class DownloadFile: Sendable {
  private struct Progress {
    var completedBytes: Int64 = 0
    var expectedBytes: Int64?
    var reportedBytes: Int64 = -1
    var closed = false

    /// The progress to report now, if enough has changed since the last report: every
    /// 0.5 % or 256 KiB, whichever is more, and the end. (Each report wakes the loop, and
    /// URLSession's callbacks keep their chunk alive until they have run, so they must
    /// stay cheap.)
    mutating func due() -> TransferProgress? {
      let step = max(256 * 1024, (expectedBytes ?? 0) / 200)
      guard
        completedBytes - reportedBytes >= step || completedBytes == expectedBytes
          || reportedBytes < 0
      else { return nil }
      guard completedBytes != reportedBytes else { return nil }
      reportedBytes = completedBytes
      return TransferProgress(completedBytes: completedBytes, expectedBytes: expectedBytes)
    }
  }

  /// The final place of the file.
  let destination: URL
  /// The file being written.
  let temporaryURL: URL
  private let progress: @Sendable (TransferProgress) -> Void
  private let state = Locked(Progress())

  /// A download to `destination`, reporting progress to `progress`.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` when `destination` is not a file URL
  ///   in an existing directory, or is a directory itself; nothing is sent then.
  init(destination: URL, progress: @escaping @Sendable (TransferProgress) -> Void)
    throws(HTTPError)
  {
    guard destination.isFileURL else {
      throw .invalidRequest(reason: "the download destination \(destination) is not a file URL")
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
    self.destination = destination
    temporaryURL = directory.appendingPathComponent(
      ".\(destination.lastPathComponent).\(UUID().uuidString).download")
    self.progress = progress
  }

  /// The transport's report of bytes moved: received bytes are the download's progress.
  /// (A new attempt, after a retry or redirect, counts from zero again.)
  func report(_ report: TransportProgress) {
    guard case .received(let bytes, let expected) = report else { return }
    let now = state.withLock { state -> TransferProgress? in
      guard !state.closed else { return nil }
      if bytes < state.completedBytes { state.reportedBytes = -1 }
      state.completedBytes = bytes
      state.expectedBytes = expected
      return state.due()
    }
    if let now { progress(now) }
  }

  /// Writes `body` to the temporary file, replacing what an earlier attempt wrote: moves
  /// it there when the transport wrote it to disk, otherwise writes its chunks.
  func write(_ body: ResponseBody) async throws(HTTPError) {
    if let file = try body.takeFile() {
      do {
        try? FileManager.default.removeItem(at: temporaryURL)
        try FileManager.default.moveItem(at: file, to: temporaryURL)
      } catch {
        try? FileManager.default.removeItem(at: file)
        throw .transport(URLError(.cannotMoveFile))
      }
      return
    }
    guard FileManager.default.createFile(atPath: temporaryURL.path, contents: nil),
      let handle = FileHandle(forWritingAtPath: temporaryURL.path)
    else { throw .transport(URLError(.cannotCreateFile)) }
    defer { try? handle.close() }
    for try await chunk in body {
      do {
        try handle.write(contentsOf: chunk)
      } catch {
        body.cancel()
        throw .transport(URLError(.cannotWriteToFile))
      }
    }
  }

  /// Puts the complete file in place, replacing whatever was at the destination, and
  /// reports its final size.
  func commit() throws(HTTPError) {
    if !FileManager.default.fileExists(atPath: temporaryURL.path) {
      // An empty body that never made a file.
      _ = FileManager.default.createFile(atPath: temporaryURL.path, contents: nil)
    }
    let size =
      (try? FileManager.default.attributesOfItem(atPath: temporaryURL.path)[.size] as? NSNumber)?
      .int64Value ?? 0
    let last = state.withLock { state -> TransferProgress? in
      state.closed = true
      guard state.reportedBytes != size else { return nil }
      return TransferProgress(completedBytes: size, expectedBytes: state.expectedBytes ?? size)
    }
    if let last { progress(last) }
    guard rename(temporaryURL.path, destination.path) == 0 else {
      discard()
      throw .transport(URLError(.cannotMoveFile))
    }
  }

  /// Deletes the partial file; later reports are ignored.
  func discard() {
    state.withLock { $0.closed = true }
    try? FileManager.default.removeItem(at: temporaryURL)
  }
}
