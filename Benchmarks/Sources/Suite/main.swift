import MallocInterposerSwift
import SuiteCases

// The Suite that counts allocations: ordo-one's malloc interposer, linked in (and preloaded by
// suite.py), counts every malloc-family call of the measured region. Its timings are not
// reported: the counter slows the client that allocates more. `SuiteTimed` gives those.
await SuiteMain.run(
  counting: AllocationCounter(
    start: {
      MallocInterposerSwift.initialize()
      MallocInterposerSwift.hook()
    },
    stop: {
      MallocInterposerSwift.unhook()
      return MallocInterposerSwift.getStatistics().mallocCount
    }))
