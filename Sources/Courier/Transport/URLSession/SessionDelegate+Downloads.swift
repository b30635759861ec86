import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A delegate-driven download task's callbacks (``DownloadTask/Driver/sessionDelegate``):
/// progress and the size limit as URLSession writes the file, and the file itself when it is
/// complete.
extension SessionDelegate: URLSessionDownloadDelegate {
  func urlSession(
    _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
  ) {
    call(for: downloadTask)?.wrote(totalBytesWritten, of: totalBytesExpectedToWrite)
  }

  /// URLSession deletes `location` once this returns (Apple platforms), so the file is moved
  /// to one of the body's own before returning. The task's completion comes next and finds
  /// the call answered already.
  func urlSession(
    _ session: URLSession, downloadTask: URLSessionDownloadTask,
    didFinishDownloadingTo location: URL
  ) {
    call(for: downloadTask)?.finishedDownload(at: location, response: downloadTask.response)
  }
}
