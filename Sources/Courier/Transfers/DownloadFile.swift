import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a download's body goes: a hidden temporary file next to the destination, created
/// when an acceptable response starts, renamed over the destination in one step when the
/// body is complete, and deleted on every other path (error, status, cancellation).
///
/// Nothing but this type touches the file, so nothing is left behind: URLSession's own
/// download tasks are not used because on Linux they leave their `/tmp/UUID.tmp` file,
/// under a name Courier cannot learn, whenever a download fails or is cancelled.
final class DownloadFile: TransferReceiver {
  private struct State {
    var handle: FileHandle?
    var completedBytes: Int64 = 0
    var expectedBytes: Int64?
    var closed = false
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

  /// An acceptable response starts: the file is created, or emptied if a retry or redirect
  /// starts again.
  func received(head: HTTPResponse) throws(HTTPError) {
    let expected = head.headers["Content-Length"].flatMap { Int64($0) }
    let started = state.withLock { state -> Result<Bool, HTTPError> in
      guard !state.closed else { return .success(false) }
      if let handle = state.handle {
        if case .failure(let error) = Self.writing({ try handle.truncate(atOffset: 0) }) {
          return .failure(error)
        }
      } else {
        guard FileManager.default.createFile(atPath: temporaryURL.path, contents: nil),
          let handle = FileHandle(forWritingAtPath: temporaryURL.path)
        else { return .failure(.transport(URLError(.cannotCreateFile))) }
        state.handle = handle
      }
      state.completedBytes = 0
      state.expectedBytes = expected
      return .success(true)
    }
    if try started.get() { progress(TransferProgress(completedBytes: 0, expectedBytes: expected)) }
  }

  func received(_ chunk: Data) throws(HTTPError) {
    let now = state.withLock { state -> Result<TransferProgress?, HTTPError> in
      guard !state.closed, let handle = state.handle else { return .success(nil) }
      if case .failure(let error) = Self.writing({ try handle.write(contentsOf: chunk) }) {
        return .failure(error)
      }
      state.completedBytes += Int64(chunk.count)
      return .success(
        TransferProgress(completedBytes: state.completedBytes, expectedBytes: state.expectedBytes))
    }
    if let progress = try now.get() { self.progress(progress) }
  }

  /// Puts the complete file in place, replacing whatever was at the destination.
  func commit() throws(HTTPError) {
    let handle = state.withLock { state in
      state.closed = true
      return state.handle
    }
    do {
      try handle?.close()
      if handle == nil {
        // A response with no head of its own (a stub's, say) still makes a file.
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
