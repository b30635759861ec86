import Foundation

/// The network benchmarks, one variant per process: `suite.py` runs them interleaved in
/// rounds and aggregates the `RESULT` lines they print into a table.
///
///   Suite get|download|paging|coalescing|cache VARIANT [--option value]…
@main
enum Suite {
  static func main() async {
    do {
      let arguments = try Arguments()
      switch arguments.benchmark {
      case "get": try await GetCase.run(arguments)
      case "download": try await DownloadCase.run(arguments)
      case "paging": try await PagingCase.run(arguments)
      case "coalescing": try await CoalescingCase.run(arguments)
      case "cache": try await CacheCase.run(arguments)
      case "fixture": try MoviePageFile.write(to: arguments.string("to", default: "page.json"))
      default: throw SuiteError.usage
      }
    } catch {
      FileHandle.standardError.write(Data("Suite: \(error)\n".utf8))
      exit(1)
    }
  }
}
