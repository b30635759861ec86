import SuiteCases

// The Suite for timings: no allocation counter linked or loaded, so each client's time is its
// own (a counter taxes every allocation, and so the client that allocates more).
await SuiteMain.run(counting: nil)
