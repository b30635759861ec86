import Foundation

/// One transfer of a ``BackgroundSession``: a stable, `Codable` identity an app can persist
/// and map back to what it was for after a relaunch. It holds no credential: its URL is the
/// request's with credentials redacted under the client's one rule.
public struct BackgroundTransfer: Codable, Sendable, Hashable, Identifiable {
  /// Whether the transfer brings a body down or sends a file up.
  public enum Kind: String, Codable, Sendable {
    /// A response body downloaded to ``BackgroundTransfer/file``.
    case download
    /// The file at ``BackgroundTransfer/file`` uploaded as the request's body.
    case upload
  }

  /// The transfer's identity, unique across launches.
  public let id: UUID
  /// Download or upload.
  public let kind: Kind
  /// The request's URL, credentials redacted.
  public let url: String
  /// A download's destination, or an upload's source file.
  public let file: URL
  /// When the transfer was started.
  public let started: Date

  init(kind: Kind, url: String, file: URL, started: Date = Date()) {
    id = UUID()
    self.kind = kind
    self.url = url
    self.file = file
    self.started = started
  }

  private enum CodingKeys: String, CodingKey {
    case id, kind, url, file, started
  }

  /// A file under the home directory is written as `~/…`, so that an identity saved before
  /// an app update (which moves an iOS app's container) still finds its file.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(kind, forKey: .kind)
    try container.encode(url, forKey: .url)
    try container.encode(started, forKey: .started)
    let home = NSHomeDirectory()
    let path = file.standardizedFileURL.path
    let stored = path.hasPrefix(home + "/") ? "~/" + path.dropFirst(home.count + 1) : path
    try container.encode(stored, forKey: .file)
  }

  /// Reads an identity written by ``encode(to:)``, a `~/…` file under this launch's home.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(UUID.self, forKey: .id)
    kind = try container.decode(Kind.self, forKey: .kind)
    url = try container.decode(String.self, forKey: .url)
    started = try container.decode(Date.self, forKey: .started)
    let stored = try container.decode(String.self, forKey: .file)
    file =
      stored.hasPrefix("~/")
      ? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(String(stored.dropFirst(2)))
      : URL(fileURLWithPath: stored)
  }
}

/// What a ``BackgroundSession`` reports of its transfers.
public enum BackgroundEvent: Sendable {
  /// Bytes moved: received for a download, sent for an upload.
  case progress(BackgroundTransfer, TransferProgress)
  /// The transfer ended with an acceptable answer: a download's file is at
  /// ``BackgroundTransfer/file`` (the response's body is there, not in `response`); an
  /// upload's `response` holds the server's answer with its body.
  case finished(BackgroundTransfer, HTTPResponse)
  /// The transfer failed: ``HTTPError/unacceptableStatus(_:)`` for a status outside the
  /// endpoint's acceptable codes, ``HTTPError/cancelled`` when cancelled, and for a download
  /// that got part of its body, the ``DownloadResumeData`` to continue it with
  /// ``BackgroundSession/download(_:to:resumingFrom:options:)``.
  case failed(BackgroundTransfer, HTTPError, resumeData: BackgroundResumeData?)

  /// The transfer the event is about.
  public var transfer: BackgroundTransfer {
    switch self {
    case .progress(let transfer, _), .finished(let transfer, _), .failed(let transfer, _, _):
      transfer
    }
  }
}

/// What a failed background download offers to continue from, for
/// ``BackgroundSession/download(_:to:resumingFrom:options:)``: `Codable`, so an app can keep it
/// across launches. It holds no credential.
public enum BackgroundResumeData: Codable, Sendable, Hashable {
  /// Courier's own: the partial file and its validator (transfers run in the process).
  case partialFile(DownloadResumeData)
  /// The system's resume data from a background `URLSession` (Apple platforms), as
  /// `NSURLSessionDownloadTaskResumeData` gave it.
  case system(Data)
}
