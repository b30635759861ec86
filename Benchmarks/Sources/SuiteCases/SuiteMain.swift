import Foundation

/// The network benchmarks, one variant per process: `suite.py` runs them interleaved in
/// rounds and aggregates the `RESULT` lines they print into a table. Two programs run them:
/// `Suite`, which counts allocations (it links ordo-one's malloc interposer), and
/// `SuiteTimed`, which does not, for timings untouched by a counter.
///
///   Suite|SuiteTimed get|download|paging|coalescing|cache|decode|websocket VARIANT [--option value]…
public enum SuiteMain {
  /// Runs the benchmark the command line names, counting allocations with `counter` if given.
  public static func run(counting counter: AllocationCounter?) async {
    Meter.counter = counter
    do {
      let arguments = try Arguments()
      switch arguments.benchmark {
      case "get": try await GetCase.run(arguments)
      case "download": try await DownloadCase.run(arguments)
      case "paging": try await PagingCase.run(arguments)
      case "coalescing": try await CoalescingCase.run(arguments)
      case "cache": try await CacheCase.run(arguments)
      case "decode": try await DecodeCase.run(arguments)
      case "websocket": try await WebSocketCase.run(arguments)
      case "fixture": try MoviePageFile.write(to: arguments.string("to", default: "page.json"))
      default: throw SuiteError.usage
      }
    } catch {
      FileHandle.standardError.write(Data("Suite: \(error)\n".utf8))
      exit(1)
    }
  }
}
