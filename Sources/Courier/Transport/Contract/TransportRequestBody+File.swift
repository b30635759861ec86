import Foundation

extension TransportRequestBody {
  /// A file holding exactly this body, for a transport that sends a body from a file
  /// (``URLSessionTransport``'s upload tasks): the file itself for a body that is one whole
  /// file, otherwise a named ``SpoolFile`` written a chunk at a time, which the caller keeps
  /// until the body has been sent. A file reached through a symbolic link is given as its
  /// target: URLSession on Linux takes the link's own size as the length to send.
  func wholeFile() async throws(HTTPError) -> (url: URL, spool: SpoolFile?) {
    if let file { return (file.resolvingSymlinksInPath(), nil) }
    guard let spool = SpoolFile(named: true), let url = spool.url else {
      throw .transport(URLError(.cannotCreateFile))
    }
    var offset: Int64 = 0
    for try await chunk in chunks() {
      guard spool.write(chunk, at: offset) else { throw .transport(URLError(.cannotWriteToFile)) }
      offset += Int64(chunk.count)
    }
    return (url, spool)
  }
}
