import Foundation

/// What a download that failed or was cancelled kept, to continue from later — in this
/// process or after a relaunch, from the same URL or a fresh one — with
/// ``HTTPClient/download(_:to:resumingFrom:options:)``.
///
/// Courier keeps nothing unless asked: set ``TransferOptions/resumeData`` to receive it.
/// It is `Codable`, to be saved with the app's state; the partial file it names stays on
/// disk (beside the destination, hidden) until the download is resumed or the app deletes
/// it. The URL it records has its credential query values redacted, like every URL
/// Courier prints.
///
/// ```swift
/// var options = TransferOptions()
/// options.resumeData = { data in try? JSONEncoder().encode(data).write(to: stateURL) }
/// ```
public struct DownloadResumeData: Codable, Sendable, Hashable {
  /// The file holding the bytes received so far.
  public var partialFile: URL
  /// The URL the bytes came from, credentials redacted (for information: resuming takes an
  /// endpoint again, whose URL may be a fresh one).
  public var url: String
  /// The validator that identifies the representation the bytes belong to: a strong
  /// `ETag`, or else a `Last-Modified` date. A resumed download sends it as `If-Range`, so
  /// the server answers the rest only if the representation is unchanged.
  public var validator: String
  /// How many bytes of the body the partial file holds.
  public var bytes: Int64
  /// The whole body's size, when the server announced it.
  public var totalBytes: Int64?

  /// Resume data with the given fields (normally made by Courier).
  public init(
    partialFile: URL, url: String, validator: String, bytes: Int64, totalBytes: Int64?
  ) {
    self.partialFile = partialFile
    self.url = url
    self.validator = validator
    self.bytes = bytes
    self.totalBytes = totalBytes
  }
}
