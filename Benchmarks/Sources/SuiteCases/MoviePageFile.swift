import BenchmarkFixtures
import Foundation

/// Writes the fixture page for nginx to serve: `Suite fixture - --to DIR/page.json`.
enum MoviePageFile {
  /// Writes ``MoviePage/body`` to `path`.
  static func write(to path: String) throws {
    try MoviePage.body.write(to: URL(fileURLWithPath: path))
  }
}
