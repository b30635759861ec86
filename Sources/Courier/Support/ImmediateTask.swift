/// Starts `body` in a task of its own that runs on the calling thread until it first
/// suspends (`Task.immediate`: Swift 6.2 toolchains, on macOS 26 / iOS 26 and later and on
/// Linux), or in an ordinary task elsewhere. Saves a thread hop for work that often
/// finishes without suspending; the one place that names the toolchain and platform
/// condition. `package`: CourierTesting's stub uses it too.
///
/// `inline`: the task also continues, each time it is resumed, on the resuming thread
/// (``InlineExecutor``), for a body that never blocks; where `Task.immediate` is missing it
/// is an ordinary task.
///
/// `body` is the task's operation itself, not wrapped in a closure of its own: one async
/// frame fewer per task.
package func immediateTask(
  inline: Bool = false, _ body: sending @escaping @isolated(any) () async -> Void
) -> Task<Void, Never> {
  // Toolchains before Swift 6.2 have no `Task.immediate` at all, hence `#if compiler`.
  #if compiler(>=6.2)
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
      if inline {
        return Task.immediate(executorPreference: InlineExecutor.shared, operation: body)
      }
      return Task.immediate(operation: body)
    }
    return Task(operation: body)
  #else
    return Task(operation: body)
  #endif
}
