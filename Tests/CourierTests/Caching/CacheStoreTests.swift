import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Cache keys and stores")
struct CacheStoreTests {
  func entry(_ primary: String, bytes: Int = 1000) -> CacheEntry {
    CacheEntry(
      metadata: .init(
        primaryKey: primary, variantKey: "v", status: 200, headers: [], url: nil,
        requestTime: Date(), responseTime: Date(), varyNames: []),
      body: Data(repeating: 1, count: bytes))
  }

  @Test("SHA-256 matches the standard's test vectors")
  func sha256() {
    #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(
      SHA256.hex(Data(repeating: UInt8(ascii: "a"), count: 1_000_000))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    // Fed in pieces that straddle blocks, the digest is the same.
    var pieces = SHA256()
    for piece in ["abcdbcdecdefdefgefghfghighij", "hijkijkljklmklmnlmnomnopnopq"] {
      pieces.update(Data(piece.utf8))
    }
    #expect(
      pieces.finalize().map { String(format: "%02x", $0) }.joined()
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }

  @Test("the variant key differs with credentials and with the headers Vary names only")
  func variantKeys() {
    func key(_ headers: [String: String]) -> CacheKey {
      var request = URLRequest(url: URL(string: "https://api.example.com/me")!)
      for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
      return CacheKey(request, credentials: Credentials(names: ["x-tenant"]), salt: "s1")
    }
    let plain = key([:])
    #expect(key(["Authorization": "a"]).variant(for: []) != plain.variant(for: []))
    #expect(
      key(["Authorization": "a"]).variant(for: []) != key(["Authorization": "b"]).variant(for: []))
    #expect(key(["Cookie": "s=1"]).variant(for: []) != plain.variant(for: []))
    #expect(key(["X-Tenant": "1"]).variant(for: []) != plain.variant(for: []))
    #expect(key(["Accept": "a"]).variant(for: []) == plain.variant(for: []))
    #expect(key(["Accept": "a"]).variant(for: ["accept"]) != plain.variant(for: ["accept"]))
    #expect(key(["Accept": ""]).variant(for: ["accept"]) != plain.variant(for: ["accept"]))
    #expect(
      plain.primary == CacheKey.primary(for: URL(string: "https://api.example.com/me"), salt: "s1"))
    #expect(!plain.primary.contains("example"))
    // Another salt, other digests: a credential cannot be found by hashing guesses.
    var request = URLRequest(url: URL(string: "https://api.example.com/me")!)
    request.setValue("a", forHTTPHeaderField: "Authorization")
    let salted = CacheKey(request, credentials: Credentials(), salt: "s2")
    #expect(salted.primary != plain.primary)
    #expect(salted.variant(for: []) != key(["Authorization": "a"]).variant(for: []))
  }

  @Test("the memory store keeps within its budget, evicting the least recently used")
  func memoryBudget() {
    let store = MemoryCacheStore(capacity: 20_000)
    for index in 0..<5 { store.store(entry("\(index)")) }
    #expect(store.size == 5 * entry("0").cost)
    _ = store.entries(for: "0")  // 0 is now the most recently used
    for index in 5..<8 { store.store(entry("\(index)")) }
    #expect(store.size <= 20_000)
    #expect(!store.entries(for: "0").isEmpty)
    #expect(store.entries(for: "1").isEmpty)
    #expect(!store.entries(for: "7").isEmpty)
    store.store(entry("big", bytes: 3_000))  // over a quarter of the budget: not kept
    #expect(store.entries(for: "big").isEmpty)
    store.remove("7")
    #expect(store.entries(for: "7").isEmpty)
    store.removeAll()
    #expect(store.size == 0)
  }

  @Test("many uses and stores keep the bookkeeping bounded and the budget held")
  func memoryChurn() {
    let store = MemoryCacheStore(capacity: 50_000)
    for round in 0..<2_000 {
      store.store(entry("\(round % 97)", bytes: round % 3_000))
      _ = store.entries(for: "\(round % 13)")
      #expect(store.size <= 50_000)
    }
  }

  @Test("an entry file decodes only when whole and unchanged")
  func fileFormat() throws {
    let original = entry("p", bytes: 100)
    let file = try #require(DiskCacheStore.encode(original))
    #expect(DiskCacheStore.decode(file)?.metadata == original.metadata)
    #expect(DiskCacheStore.decode(file)?.body == original.body)
    #expect(DiskCacheStore.decode(file.dropLast()) == nil)
    var flipped = file
    flipped[flipped.count - 1] ^= 1
    #expect(DiskCacheStore.decode(flipped) == nil)
    #expect(DiskCacheStore.decode(Data()) == nil)
    #expect(DiskCacheStore.decode(file.prefix(20)) == nil)
  }
}
