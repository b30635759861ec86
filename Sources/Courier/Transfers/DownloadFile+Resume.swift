import Foundation

/// Resuming: what an attempt's head means for the bytes already kept, and where the next
/// attempt starts (RFC 9110 §14: `Range`, `If-Range`, `206`, `Content-Range`, `416`).
extension DownloadFile {
  /// Decides, from an attempt's head, whether its body continues the kept bytes (true:
  /// append) or replaces them (false), and records the representation's validator and
  /// length; see ``State/begin(_:)``. When it continues them, the file is cut back to the
  /// kept bytes first: what an earlier try of the same request wrote (a ``RetryPolicy``
  /// retry sends the same `Range`) is not kept twice.
  func begin(_ head: HTTPResponse) throws(HTTPError) -> Bool {
    try state.withLock { state -> Result<Bool, HTTPError> in
      state.begin(head).map { appends in
        if appends { truncate(temporaryURL.path, off_t(state.kept)) }
        return appends
      }
    }.get()
  }

  /// Refuses resume data whose partial file is missing, or does not hold the bytes it names,
  /// or that has no validator, or one no header can carry (Foundation would drop the
  /// `If-Range` without a word, and the server send the rest of whatever it now holds), with
  /// ``HTTPError/invalidRequest(reason:)``.
  static func check(resuming data: DownloadResumeData) throws(HTTPError) {
    do throws(HTTPError) {
      try HeaderValidation.validate(["If-Range": data.validator])
    } catch {
      throw .invalidRequest(
        reason: "the resume data's validator is no header value (it has a control character)")
    }
    let size = Self.size(of: data.partialFile)
    guard FileManager.default.fileExists(atPath: data.partialFile.path), size == data.bytes,
      data.bytes > 0, !data.validator.isEmpty
    else {
      throw .invalidRequest(
        reason:
          "the resume data's partial file (\(data.partialFile.path)) is missing or does not "
          + "hold the \(data.bytes) bytes it names")
    }
  }

  /// Takes over `data`'s partial file, to continue after its bytes.
  func resume(from data: DownloadResumeData) throws(HTTPError) {
    try Self.check(resuming: data)
    do {
      try FileManager.default.moveItem(at: data.partialFile, to: temporaryURL)
    } catch {
      throw .invalidRequest(
        reason: "the resume data's partial file (\(data.partialFile.path)) cannot be moved")
    }
    state.withLock { state in
      state.kept = data.bytes
      state.validator = data.validator
      state.total = data.totalBytes
    }
  }

  /// The conditions for the next attempt to continue where the file ends — `Range:
  /// bytes=N-` and `If-Range` with the validator — or `nil` when it cannot: no bytes, no
  /// validator, or a content-encoded body. Until the next head, the file's bytes count as
  /// kept.
  func resumeConditions() -> HTTPHeaders? {
    let size = Self.size(of: temporaryURL)
    return state.withLock { state in
      guard !state.closed, size > 0, let validator = state.validator, !state.encoded else {
        state.kept = 0
        return nil
      }
      state.kept = size
      return ["Range": "bytes=\(size)-", "If-Range": validator]
    }
  }

  /// Whether the file holds bytes that a range request could continue: some, with a
  /// validator, not content-encoded.
  var canResume: Bool {
    let size = Self.size(of: temporaryURL)
    return state.withLock { size > 0 && $0.validator != nil && !$0.encoded && !$0.closed }
  }

  /// Whether a `416 Range Not Satisfiable` says the kept bytes are already the whole body
  /// (`Content-Range: bytes */N` with N the bytes kept).
  func isComplete(after notSatisfiable: HTTPResponse) -> Bool {
    guard let range = ContentRange(notSatisfiable.headers["Content-Range"]),
      range.first == nil, let total = range.total
    else { return false }
    return state.withLock { state in
      guard state.kept > 0, state.kept == total else { return false }
      state.total = total
      state.rangeEnd = nil  // the 416's total is the word on where the file ends
      return true
    }
  }

  /// Drops the kept bytes: the next attempt asks for the whole body.
  func restart() {
    state.withLock { state in
      state.kept = 0
      state.restarts += 1
    }
    try? FileManager.default.removeItem(at: temporaryURL)
  }

  /// Ends the download keeping its file as resume data, when there is something to resume
  /// (bytes and a validator); otherwise deletes it and returns `nil`.
  func keptForResuming(url: String) -> DownloadResumeData? {
    let size = Self.size(of: temporaryURL)
    let data = state.withLock { state -> DownloadResumeData? in
      state.closed = true
      // The caller's own range starts elsewhere than byte 0: not something to resume.
      guard size > 0, let validator = state.validator, !state.encoded, !state.callerRange
      else { return nil }
      return DownloadResumeData(
        partialFile: temporaryURL, url: url, validator: validator, bytes: size,
        totalBytes: state.total)
    }
    if data == nil { try? FileManager.default.removeItem(at: temporaryURL) }
    return data
  }

  /// Whether a download that failed with `error` may continue with a range request: a
  /// connection that dropped or went quiet, not a cancellation, a local file error, a
  /// refused request or an answer that did not fit.
  func isResumable(_ error: HTTPError) -> Bool {
    guard !state.withLock({ $0.refused }) else { return false }
    switch error {
    case .transport(let urlError):
      let local: Set<URLError.Code> = [
        .cancelled, .cannotCreateFile, .cannotOpenFile, .cannotWriteToFile, .cannotMoveFile,
        .cannotRemoveFile, .badURL, .unsupportedURL, .fileDoesNotExist, .noPermissionsToReadFile,
        .resourceUnavailable,
      ]
      return !local.contains(urlError.code)
    case .timedOut:
      return true
    default:
      return false
    }
  }

  static func misfit(_ reason: String) -> HTTPError {
    .transport(.badServerResponse, reason: reason)
  }
}

/// A `Content-Range` value: `bytes first-last/total`, or `bytes */total` (RFC 9110 §14.4).
struct ContentRange: Equatable {
  var first: Int64?
  var last: Int64?
  var total: Int64?

  init?(_ value: String?) {
    guard let value, value.hasPrefix("bytes ") else { return nil }
    let parts = value.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2 else { return nil }
    total = parts[1] == "*" ? nil : Int64(parts[1])
    guard parts[1] == "*" || total != nil else { return nil }
    if parts[0] == "*" { return }
    let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]),
      first <= last, total.map({ last < $0 }) ?? true
    else { return nil }
    self.first = first
    self.last = last
  }
}

extension DownloadFile.State {
  /// Decides, from an attempt's head, whether its body continues the kept bytes (true) or
  /// replaces them (false). A `200` after kept bytes means the server sent everything again
  /// (the resource changed, or it serves no ranges): the download restarts from zero, and
  /// progress counts the restart. The validator kept for a later `If-Range` is a strong
  /// `ETag`, or — only when there is no `ETag` at all — a `Last-Modified` at least a second
  /// before the response's `Date` (RFC 9110 §8.8.2.2, §13.1.5); with neither, the download
  /// cannot be resumed.
  ///
  /// Fails with ``HTTPError/transport(_:)`` (`badServerResponse`) for a `206` that does not
  /// fit: its `Content-Range` does not start where the kept bytes end (at zero when none
  /// are, unless the caller asked for a range), its total differs, or its `ETag` or
  /// `Last-Modified` is not the validator the kept bytes came with. Nothing is spliced. Where the range ends is kept
  /// (``rangeEnd``): the finished file must end there too.
  mutating func begin(_ head: HTTPResponse) -> Result<Bool, HTTPError> {
    attemptBytes = 0
    attemptExpected = nil
    reportedBytes = -1
    rangeEnd = nil
    if head.status == 206, kept > 0 || !callerRange {
      let range = ContentRange(head.headers["Content-Range"])
      let etag = head.headers["ETag"]
      let lastModified = head.headers["Last-Modified"]
      guard let range, range.first == kept,
        total == nil || range.total == nil || range.total == total,
        names(validator, etag: etag, lastModified: lastModified)
      else {
        refused = true
        let validators = [("ETag", etag), ("Last-Modified", lastModified)].compactMap { field in
          field.1.map { ", \(field.0): \($0)" }
        }.joined()
        return .failure(
          DownloadFile.misfit(
            "the server's range answer (Content-Range: \(head.headers["Content-Range"] ?? "none")"
              + "\(validators)) does not continue the \(kept) bytes kept"))
      }
      total = range.total ?? total
      rangeEnd = range.last.map { $0 + 1 }
      if kept > 0 { return .success(true) }
    } else if kept > 0 {
      kept = 0
      restarts += 1
    }
    let etag = head.headers["ETag"]
    let lastModified = head.headers["Last-Modified"]
    if let etag {
      validator = etag.hasPrefix("W/") ? nil : etag
    } else if let lastModified, let modified = HTTPDate.parse(lastModified),
      let date = head.headers["Date"].flatMap(HTTPDate.parse),
      date.timeIntervalSince(modified) >= 1
    {
      validator = lastModified
    } else {
      validator = nil
    }
    let encoding = head.headers["Content-Encoding"]?.lowercased()
    encoded = encoding != nil && encoding != "identity"
    if head.status != 206 {
      total = encoded ? nil : head.headers["Content-Length"].flatMap { Int64($0) }
    }
    return .success(false)
  }

  /// Whether a `206`'s validators name the representation the kept bytes came from, the one
  /// kept as `validator`: a strong `ETag` kept must be its `ETag`, a `Last-Modified` kept its
  /// `Last-Modified` (the same date). A field the answer leaves out is no answer either way.
  private func names(_ validator: String?, etag: String?, lastModified: String?) -> Bool {
    guard let validator else { return true }
    if validator.hasPrefix("\"") { return etag.map { $0 == validator } ?? true }
    guard let lastModified else { return true }
    guard let date = HTTPDate.parse(lastModified), let kept = HTTPDate.parse(validator) else {
      return lastModified == validator
    }
    return date == kept
  }
}
