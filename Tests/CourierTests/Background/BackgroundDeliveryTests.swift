import Foundation
import Testing

@testable import Courier

/// The system's word that a background session's events are delivered (Apple platforms'
/// `urlSessionDidFinishEvents`), which `handleEvents`' completion handler waits for.
@Suite("Background sessions: the system's delivery")
struct BackgroundDeliveryTests {
  @Test("A wait ends when the system says its events are delivered")
  func waitThenDelivery() async {
    let delivery = BackgroundDelivery()
    let waiting = Task { await delivery.wait() }
    // Whether the wait has begun or not, the word ends it: kept, or resumed.
    delivery.delivered()
    await waiting.value
  }

  @Test("A word that came before any wait is kept for the next wait, and used up by it")
  func deliveryThenWaits() async {
    let delivery = BackgroundDelivery()
    delivery.delivered()
    #expect(delivery.isKept)
    await delivery.wait()  // at once: the word was kept
    #expect(!delivery.isKept)
    let second = Task { await delivery.wait() }
    // The word was used up: the second wait needs a delivery of its own.
    delivery.delivered()
    await second.value
  }
}
