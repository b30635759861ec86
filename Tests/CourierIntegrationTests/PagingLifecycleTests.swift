import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// How a paging loop fetches: lazily, within limits, ahead of time on request, and not at
/// all once cancelled. The paging schemes themselves are in PagingTests.
@Suite("Paging: laziness, limits, prefetch and cancellation", .timeLimit(.minutes(1)))
struct PagingLifecycleTests {
  @Test("lazy: nothing is sent before the first next(), and nothing after a break")
  func laziness() async throws {
    let loopback = try Loopback(handler: PagingTests.numbered(total: 100))
    defer { loopback.stop() }
    let pages = loopback.client.pages(Popular())
    var iterator = pages.makeAsyncIterator()
    #expect(loopback.server.requestCount == 0)
    _ = try await iterator.next()
    #expect(loopback.server.requestCount == 1)
    for try await page in pages where page.page == 2 { break }
    #expect(loopback.server.requestCount == 3)
  }

  @Test("maximumPages stops early")
  func maximumPages() async throws {
    let loopback = try Loopback(handler: PagingTests.numbered(total: 100))
    defer { loopback.stop() }
    var count = 0
    for try await _ in loopback.client.pages(Popular(), maximumPages: 4) { count += 1 }
    #expect(count == 4)
    #expect(loopback.server.requestCount == 4)
    for try await _ in loopback.client.pages(Popular(), maximumPages: 0) {
      Issue.record("maximumPages 0 yields nothing")
    }
    #expect(loopback.server.requestCount == 4)
  }

  @Test("a negative maximumPages is an invalid request, as other negative limits; nothing is sent")
  func negativeMaximumPages() async throws {
    let loopback = try Loopback(handler: PagingTests.numbered(total: 100))
    defer { loopback.stop() }
    var iterator = loopback.client.pages(Popular(), maximumPages: -1).makeAsyncIterator()
    let error = await #expect(throws: HTTPError.self) { _ = try await iterator.next() }
    #expect(error?.invalidRequestReason?.contains("maximumPages") == true)
    #expect(try await iterator.next() == nil)
    #expect(loopback.server.requestCount == 0)
  }

  @Test("items flattens pages and fetches only the pages it needs")
  func items() async throws {
    let loopback = try Loopback(handler: PagingTests.numbered(total: 50))
    defer { loopback.stop() }
    var items: [Int] = []
    for try await item in loopback.client.pages(Popular()).items(\.results) {
      items.append(item)
      if items.count == 7 { break }
    }
    #expect(items == [11, 12, 13, 21, 22, 23, 31])
    #expect(loopback.server.requestCount == 3)
  }

  @Test("prefetch asks for the next page while the loop works on the current one")
  func prefetch() async throws {
    let secondRequested = Signal()
    let loopback = try Loopback { request, response in
      let page = Int(request.queryValues("page").first ?? "1") ?? 1
      if page == 2 { secondRequested.fire() }
      try await response.send(encoding: NumberedPage(page: page, totalPages: 2, results: [page]))
    }
    defer { loopback.stop() }
    var iterator = loopback.client.pages(Popular(), prefetch: true).makeAsyncIterator()
    #expect(try await iterator.next()?.page == 1)
    await watched { await secondRequested.wait() }  // requested before we ask for it
    #expect(try await iterator.next()?.page == 2)
    #expect(try await iterator.next() == nil)
    #expect(loopback.server.requestCount == 2)
  }

  @Test("a prefetched page nobody asks for is cancelled when the loop breaks")
  func prefetchCancelledOnBreak() async throws {
    let secondRequested = Signal()
    let gone = Signal()
    let loopback = try Loopback { request, response in
      let page = Int(request.queryValues("page").first ?? "1") ?? 1
      if page == 2 {
        secondRequested.fire()
        await response.clientDisconnected()
        gone.fire()
        return
      }
      try await response.send(encoding: NumberedPage(page: page, totalPages: 9, results: [page]))
    }
    defer { loopback.stop() }
    for try await _ in loopback.client.pages(Popular(), prefetch: true) {
      await watched { await secondRequested.wait() }
      break
    }
    await watched { await gone.wait() }
  }

  @Test("cancelling the consuming task stops paging at once with cancelled")
  func cancellation() async throws {
    let firstPageSeen = Signal()
    let loopback = try Loopback(handler: PagingTests.numbered(total: 1000))
    defer { loopback.stop() }
    let client = loopback.client
    let task = Task {
      var count = 0
      for try await _ in client.pages(Popular()) {
        count += 1
        firstPageSeen.fire()
        withUnsafeCurrentTask { $0?.cancel() }
      }
      return count
    }
    await firstPageSeen.wait()
    await expectCancelled(task)
    #expect(loopback.server.requestCount == 1)
  }

  @Test("a cancelled loop with prefetch stops at once and starts no more requests")
  func cancellationWithPrefetch() async throws {
    let loopback = try Loopback(handler: PagingTests.numbered(total: 1000))
    defer { loopback.stop() }
    let client = loopback.client
    let task = Task {
      for try await _ in client.pages(Popular(), prefetch: true) {
        withUnsafeCurrentTask { $0?.cancel() }
      }
    }
    await expectCancelled(task)
    #expect(loopback.server.requestCount <= 2)  // the first page, and at most its prefetch
  }
}
