import Foundation

/// How long each micro-benchmark runs at most, in seconds: `BENCHMARK_SECONDS` from the
/// environment (a quick smoke run sets 0.2 or so), or `fallback`.
public func benchmarkSeconds(default fallback: Int) -> Double {
  ProcessInfo.processInfo.environment["BENCHMARK_SECONDS"].flatMap(Double.init) ?? Double(fallback)
}
