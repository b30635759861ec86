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
/// The body arrives either as a finished file from URLSession's download task
/// (``URLSessionTransport``; see ``DownloadTask``), moved here, or as chunks from any other
/// transport, written here as they come.
final class DownloadFile: TransferReceiver {
  private struct State {
    var handle: FileHandle?
    var completedBytes: Int64 = 0
    var expectedBytes: Int64?
    var reportedBytes: Int64 = -1
    var closed = false

    /// The progress to report now, if enough has changed since the last report: every
    /// 0.5 % or 256 KiB, whichever is more, and the end. (Each report wakes the loop, and
    /// URLSession's callbacks keep their chunk alive until they have run, so they must
    /// stay cheap.)
    mutating func due(throttled: Bool = true) -> TransferProgress? {
      let step = throttled ? max(256 * 1024, (expectedBytes ?? 0) / 200) : 1
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
  private let state = Locked(State())

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

  func sent(_ bytes: Int64, of expected: Int64?) {}

  /// An acceptable response starts. A streamed body (a retry or redirect starting again)
  /// starts from an empty file; a download task's head, which comes at the end, only
  /// confirms the total.
  func received(head: HTTPResponse) throws(HTTPError) {
    let expected = head.headers["Content-Length"].flatMap { Int64($0) }
    let restarted = state.withLock { state -> Result<TransferProgress?, HTTPError> in
      guard !state.closed else { return .success(nil) }
      state.expectedBytes = expected
      if let handle = state.handle {
        if case .failure(let error) = Self.writing({ try handle.truncate(atOffset: 0) }) {
          return .failure(error)
        }
      } else if state.completedBytes > 0 {
        return .success(nil)
      }
      state.completedBytes = 0
      state.reportedBytes = -1
      return .success(state.due())
    }
    if let now = try restarted.get() { progress(now) }
  }

  /// The file being written, created on the first chunk.
  private func handle(_ state: inout State) -> Result<FileHandle, HTTPError> {
    if let handle = state.handle { return .success(handle) }
    guard FileManager.default.createFile(atPath: temporaryURL.path, contents: nil),
      let handle = FileHandle(forWritingAtPath: temporaryURL.path)
    else { return .failure(.transport(URLError(.cannotCreateFile))) }
    state.handle = handle
    return .success(handle)
  }

  func received(_ chunk: Data) throws(HTTPError) {
    let now = state.withLock { state -> Result<TransferProgress?, HTTPError> in
      guard !state.closed else { return .success(nil) }
      let written = handle(&state).flatMap { handle in
        Self.writing { try handle.write(contentsOf: chunk) }
      }
      if case .failure(let error) = written { return .failure(error) }
      state.completedBytes += Int64(chunk.count)
      return .success(state.due())
    }
    if let progress = try now.get() { self.progress(progress) }
  }

  /// A download task wrote this much to its own file.
  func wrote(_ bytes: Int64, of expected: Int64?) {
    let now = state.withLock { state -> TransferProgress? in
      guard !state.closed else { return nil }
      if bytes < state.completedBytes { state.reportedBytes = -1 }  // a new attempt
      state.completedBytes = bytes
      if let expected { state.expectedBytes = expected }
      return state.due(throttled: false)  // polled, ten times a second at most
    }
    if let now { progress(now) }
  }

  /// A download task's finished file: moved to the temporary place (copied, if on another
  /// file system), from where ``commit()`` renames it.
  func received(file url: URL) throws(HTTPError) {
    let moved = state.withLock { state -> Result<Void, HTTPError> in
      guard !state.closed else { return .success(()) }
      try? state.handle?.close()
      state.handle = nil
      do {
        try? FileManager.default.removeItem(at: temporaryURL)
        try FileManager.default.moveItem(at: url, to: temporaryURL)
        return .success(())
      } catch {
        return .failure(.transport(URLError(.cannotMoveFile)))
      }
    }
    try moved.get()
  }

  /// Puts the complete file in place, replacing whatever was at the destination.
  func commit() throws(HTTPError) {
    let (handle, last) = state.withLock { state in
      state.closed = true
      let last =
        state.reportedBytes == state.completedBytes
        ? nil
        : TransferProgress(completedBytes: state.completedBytes, expectedBytes: state.expectedBytes)
      return (state.handle, last)
    }
    if let last { progress(last) }
    do {
      try handle?.close()
      if !FileManager.default.fileExists(atPath: temporaryURL.path) {
        // An empty body that never made a file.
        _ = FileManager.default.createFile(atPath: temporaryURL.path, contents: nil)
      }
      guard rename(temporaryURL.path, destination.path) == 0 else {
        throw URLError(.cannotMoveFile)
      }
    } catch {
      discard()
      throw .transport(URLError(.cannotMoveFile))
    }
  }

  /// Deletes the partial file; later chunks are ignored.
  func discard() {
    let handle = state.withLock { state in
      state.closed = true
      defer { state.handle = nil }
      return state.handle
    }
    try? handle?.close()
    try? FileManager.default.removeItem(at: temporaryURL)
  }

  private static func writing(_ body: () throws -> Void) -> Result<Void, HTTPError> {
    do {
      try body()
      return .success(())
    } catch {
      return .failure(.transport(URLError(.cannotWriteToFile)))
    }
  }
}
