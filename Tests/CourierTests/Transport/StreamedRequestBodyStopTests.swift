import Foundation
import Testing

@testable import Courier

/// The stop of a URLSession task's streamed body (Apple platforms pump it into a bound stream
/// pair, StreamedRequestBody+Platform.swift): whatever reads the body must stop when the task
/// ends, also what starts reading after that.
@Suite("Streamed request bodies: stopping with the task")
struct StreamedRequestBodyStopTests {
  @Test("What starts reading after the task ended is stopped at once, not left running")
  func stopBeforeStart() {
    let body = StreamedRequestBody(.data(Data([1, 2, 3]))) { _ in }
    let stopped = Locked(0)
    body.onStop { stopped.withLock { $0 += 1 } }
    #expect(stopped.withLock { $0 } == 0)
    body.stop()
    #expect(stopped.withLock { $0 } == 1)
    // The task has ended: a pump made now (URLSession asked for the stream late) stops at once.
    body.onStop { stopped.withLock { $0 += 1 } }
    #expect(stopped.withLock { $0 } == 2)
    body.stop()
    #expect(stopped.withLock { $0 } == 2)
  }

  @Test("A body asked for again stops the reader before it, which must not go on or fail the task")
  func resentBodyStopsThePreviousReader() {
    let body = StreamedRequestBody(.data(Data([1, 2, 3]))) { _ in }
    let stopped = Locked<[Int]>([])
    body.onStop { stopped.withLock { $0.append(1) } }
    #expect(stopped.withLock { $0 }.isEmpty)
    body.onStop { stopped.withLock { $0.append(2) } }  // URLSession resends the body
    #expect(stopped.withLock { $0 } == [1])
    body.stop()
    #expect(stopped.withLock { $0 } == [1, 2])
  }
}
