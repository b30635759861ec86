/// Starts `body` in a task of its own that runs on the calling thread until it first
/// suspends (`Task.immediate`: Swift 6.2 toolchains, on macOS 26 / iOS 26 and later and on
/// Linux), or in an ordinary task elsewhere. Saves a thread hop for work that often
/// finishes without suspending; the one place that names the toolchain and platform
/// condition. `package`: CourierTesting's stub uses it too.
package func immediateTask(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
  // Toolchains before Swift 6.2 have no `Task.immediate` at all, hence `#if compiler`.
  #if compiler(>=6.2)
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
      return Task.immediate { await body() }
    }
    return Task { await body() }
  #else
    return Task { await body() }
  #endif
}
