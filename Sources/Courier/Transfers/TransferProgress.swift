import Foundation

/// How far a download or upload has come.
public struct TransferProgress: Sendable, Hashable {
  /// Bytes received (downloads) or sent (uploads) so far.
  public var completedBytes: Int64
  /// The total to expect, when known (`Content-Length`, or the upload's size).
  public var expectedBytes: Int64?
  /// For a resumed download: how many of ``completedBytes`` came before the current
  /// attempt (from a dropped connection, or from ``DownloadResumeData``); 0 otherwise.
  public var resumedBytes: Int64
  /// For a download: how many times it started again from zero because the server sent
  /// the whole body instead of the rest (the resource changed, or it serves no ranges).
  public var restarts: Int

  /// Progress of `completedBytes` out of `expectedBytes`.
  public init(
    completedBytes: Int64, expectedBytes: Int64?, resumedBytes: Int64 = 0, restarts: Int = 0
  ) {
    self.completedBytes = completedBytes
    self.expectedBytes = expectedBytes
    self.resumedBytes = resumedBytes
    self.restarts = restarts
  }

  /// The part done, from 0 to 1, when the total is known.
  public var fraction: Double? {
    guard let expectedBytes, expectedBytes > 0 else { return nil }
    return min(1, Double(completedBytes) / Double(expectedBytes))
  }
}

/// One event of a ``Transfer``: progress while it runs, then its outcome.
public enum TransferEvent<Outcome: Sendable>: Sendable {
  /// Bytes moved so far.
  case progress(TransferProgress)
  /// The transfer finished: the last event.
  case completed(Outcome)
}

/// A file a download put in place, with the response it came from.
public struct DownloadedFile: Sendable {
  /// Where the file is: the destination the download was given.
  public var url: URL
  /// Status, headers and URL of the response (its body is in the file, not here).
  public var response: HTTPResponse

  /// A downloaded file at `url`.
  public init(url: URL, response: HTTPResponse) {
    self.url = url
    self.response = response
  }
}
