import Foundation

extension TransportRequestBody {
  /// A file holding exactly this body, for a transport that can send a body with a length
  /// only from a file (``URLSessionTransport`` on Linux): the file itself for a body that is
  /// one whole file, otherwise a temporary copy written a chunk at a time, which the caller
  /// deletes (`isTemporary`).
  func wholeFile() async throws(HTTPError) -> (url: URL, isTemporary: Bool) {
    if let file { return (file, false) }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-body-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: url.path, contents: nil),
      let handle = FileHandle(forWritingAtPath: url.path)
    else { throw .transport(URLError(.cannotCreateFile)) }
    defer { try? handle.close() }
    do throws(HTTPError) {
      for try await chunk in chunks() {
        do {
          try handle.write(contentsOf: chunk)
        } catch {
          throw .transport(URLError(.cannotWriteToFile))
        }
      }
    } catch {
      try? FileManager.default.removeItem(at: url)
      throw error
    }
    return (url, true)
  }
}
