import Courier
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Walkthrough {
  // MARK: - Downloading a poster

  /// Downloads `movie`'s poster from `images` to a temporary file with a progress bar, then
  /// deletes the file again.
  func downloadPoster(of movie: Movie, from images: HTTPClient) async throws(HTTPError) {
    guard let posterPath = movie.posterPath else {
      print("“\(movie.title)” has no poster.")
      return
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "movies-poster-\(movie.id).jpg")
    defer { try? FileManager.default.removeItem(at: file) }
    print("GET \(posterPath) → \(file.path)")
    let interactive = isatty(STDOUT_FILENO) == 1
    var updates = 0
    for try await event in images.download(MovieApi.Poster(posterPath: posterPath), to: file) {
      switch event {
      case .progress(let progress):
        updates += 1
        if interactive { print("\r" + Self.bar(progress), terminator: "") }
        fflush(nil)  // every stream, so that the bar shows at once
      case .completed(let download):
        if interactive { print() }
        let attributes = try? FileManager.default.attributesOfItem(atPath: download.url.path)
        let size = Int64((attributes?[.size] as? NSNumber)?.intValue ?? 0)
        let done = TransferProgress(completedBytes: size, expectedBytes: size)
        print("\(Self.bar(done))  \(download.response.status), \(updates) progress updates")
      }
    }
  }

  /// `[██████████··········]  50%  1.2 of 2.4 MB`
  static func bar(_ progress: TransferProgress) -> String {
    let width = 30
    let fraction = progress.fraction ?? 0
    let filled = Int((fraction * Double(width)).rounded(.down))
    let megabytes = { (bytes: Int64) in String(format: "%.1f", Double(bytes) / 1_000_000) }
    let total = progress.expectedBytes.map { " of \(megabytes($0))" } ?? ""
    return "[" + String(repeating: "█", count: filled)
      + String(repeating: "·", count: width - filled)
      + "] " + String(format: "%3d%%", Int(fraction * 100))
      + "  \(megabytes(progress.completedBytes))\(total) MB"
  }
}
