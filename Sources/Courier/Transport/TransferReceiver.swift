import Foundation

/// What a streamed exchange reports to as it happens: upload progress, the response head,
/// and the body a chunk at a time. ``HTTPTransport/stream(_:to:)`` calls it; ``HTTPClient``'s
/// downloads, uploads, ``HTTPClient/bytes(_:options:)`` and
/// ``HTTPClient/events(_:reconnection:)`` are built on it.
///
/// A download (``HTTPTransport/download(_:to:)``) may hand over the body as a file instead
/// of chunks, with its progress reported through ``wrote(_:of:)``.
///
/// A transport calls it from one thread at a time, in order. A head may come more than
/// once, when a redirect or a retry starts the exchange again: each head starts a new body.
/// Throwing from ``received(head:)`` or ``received(_:)`` ends the exchange with that error
/// and cancels the transfer.
public protocol TransferReceiver: Sendable {
  /// `bytes` of the request body have been sent so far, of `expected` in all (`nil` when
  /// unknown).
  func sent(_ bytes: Int64, of expected: Int64?)

  /// The response head (status, headers, URL; an empty body) arrived.
  func received(head: HTTPResponse) throws(HTTPError)

  /// The next bytes of the body arrived.
  func received(_ chunk: Data) throws(HTTPError)

  /// A download: `bytes` of the body have been written to disk so far, of `expected` in
  /// all (`nil` when unknown).
  func wrote(_ bytes: Int64, of expected: Int64?)

  /// A download: the whole body is in the file at `url`. Move or copy it before returning;
  /// the transport deletes whatever is left there afterwards.
  func received(file url: URL) throws(HTTPError)
}

extension TransferReceiver {
  /// Does nothing: progress is counted from the chunks.
  public func wrote(_ bytes: Int64, of expected: Int64?) {}

  /// Reads the file and hands it over as chunks of at most 64 KiB.
  public func received(file url: URL) throws(HTTPError) {
    guard let handle = FileHandle(forReadingAtPath: url.path) else {
      throw .transport(URLError(.cannotOpenFile))
    }
    defer { try? handle.close() }
    while true {
      let chunk: Data
      do {
        chunk = try handle.read(upToCount: 64 * 1024) ?? Data()
      } catch {
        throw .transport(URLError(.cannotOpenFile))
      }
      if chunk.isEmpty { return }
      try received(chunk)
    }
  }
}
