import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The cache's entries on disk, in a directory that outlives the process, within a byte
/// budget.
///
/// Each entry is one file, `<directory>/<primary key>/<variant key>`, written beside its
/// place and renamed over it, so a reader (this process or another sharing the directory)
/// sees a whole entry or none. A file holds a format line, a SHA-256 digest of the rest,
/// the metadata as one line of JSON, and the body: a file that is truncated, corrupted or
/// of another format fails its checks, is deleted, and counts as a miss; so is one that is
/// no regular file (a FIFO, a link) or over a quarter of the budget, which is not read. Past
/// the budget, the files least recently used (by modification time, touched on every hit) go
/// first.
final class DiskCacheStore: Sendable {
  private static let format = Data("courier-cache 1\n".utf8)

  /// The directory.
  let directory: URL
  /// The budget in bytes.
  let capacity: Int
  /// The bytes the files take, as far as this process knows (other processes sharing the
  /// directory are counted when it is next trimmed).
  private let size: Locked<Int>
  /// The salt of the keys (``CacheKey``), kept in the directory's `.salt` file so that
  /// every client and process sharing the directory uses the same one.
  let salt: String
  /// The order in which this process used files, for ties of modification time (which
  /// the file system records coarsely) when trimming.
  private let uses = Locked<(tick: UInt64, byPath: [String: UInt64])>((0, [:]))

  /// Opens (creating if need be) the store in `directory`.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` when the directory cannot be created,
  ///   is a file, or cannot be written.
  init(directory: URL, capacity: Int) throws(HTTPError) {
    guard directory.isFileURL else {
      throw .invalidRequest(
        reason: "the cache directory \(Redaction.url(directory)) is not a file URL")
    }
    let path = directory.path
    do {
      try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true)
    } catch {
      throw .invalidRequest(
        reason: "the cache directory \(path) cannot be created (\(Self.reason(error)))")
    }
    let probe = directory.appendingPathComponent(".probe-\(UUID().uuidString)").path
    guard FileBytes.writeAtomically([Data()], to: probe) else {
      throw .invalidRequest(
        reason:
          "the cache directory \(path) cannot be written (\(String(cString: strerror(errno))))")
    }
    unlink(probe)
    guard let salt = Self.salt(in: directory) else {
      throw .invalidRequest(
        reason: "the cache directory \(path) cannot be used now: its salt cannot be read or written"
      )
    }
    self.salt = salt
    self.directory = directory
    self.capacity = max(0, capacity)
    size = Locked(0)
    let total = files().reduce(0) { $0 + $1.size }
    size.withLock { $0 = total }
    // A budget lowered since the files were written.
    if total > self.capacity { trim() }
  }

  /// The bytes the files take.
  var usage: Int { size.withLock { $0 } }

  /// The entries stored for `primary` that `matching` accepts, each touched as used (the
  /// others are not: a variant no request matches must not stay recently used). Files that
  /// fail their checks are deleted.
  func entries(
    for primary: String, matching: (CacheEntry) -> Bool = { _ in true }
  ) -> [CacheEntry] {
    let folder = directory.appendingPathComponent(primary).path
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
      return []
    }
    var entries: [CacheEntry] = []
    for name in names where !name.hasPrefix(".") {
      let path = folder + "/" + name
      // At most a quarter of the budget, as written: a larger file (or a FIFO, a link) is
      // none of this store's, or of a budget since lowered, and goes. One that cannot be read
      // now (under data protection while the device is locked, say) is a miss, and stays.
      let data: Data
      switch FileBytes.load(path, atMost: capacity / 4) {
      case .contents(let read): data = read
      case .foreign:
        remove(path)
        continue
      case .missing, .unavailable: continue
      }
      guard let entry = Self.decode(data), entry.metadata.primaryKey == primary,
        entry.metadata.variantKey == name
      else {
        remove(path)
        continue
      }
      guard matching(entry) else { continue }
      utime(path, nil)
      used(path)
      entries.append(entry)
    }
    return entries
  }

  /// Writes `entry`, replacing the file with the same keys, then trims the directory if it
  /// went past the budget. An entry over a quarter of the budget is not written, and a
  /// failed write leaves the old file or none.
  func store(_ entry: CacheEntry) {
    let folder = directory.appendingPathComponent(entry.metadata.primaryKey).path
    let path = folder + "/" + entry.metadata.variantKey
    guard let encoded = Self.encode(entry), encoded.count <= capacity / 4 else {
      remove(path)
      return
    }
    let old = Self.fileSize(path)
    if mkdir(folder, 0o700) != 0, errno == ENOENT {
      recreate()
      mkdir(folder, 0o700)
    }
    // The folder may go between the two steps (deleted as emptied, by this process or
    // another sharing the directory): made again, once.
    guard
      FileBytes.writeAtomically([encoded], to: path)
        || (mkdir(folder, 0o700) == 0 && FileBytes.writeAtomically([encoded], to: path))
    else {
      rmdir(folder)  // only when empty: no folder is left for a write that failed
      return
    }
    used(path)
    let total = size.withLock { size in
      size += encoded.count - old
      return size
    }
    if total > capacity { trim() }
  }

  /// Makes the directory again, with this store's salt, after it was deleted while in use (a
  /// user or a cleaner emptying caches): nothing was stored on disk again until the next
  /// launch. Its files went with it, so none is counted. Should another process have put its
  /// own salt back first, their keys differ from this store's: their entries are misses to
  /// each other, never wrong answers.
  private func recreate() {
    guard
      (try? FileManager.default.createDirectory(
        atPath: directory.path, withIntermediateDirectories: true)) != nil
    else { return }
    _ = Self.salt(in: directory, candidate: salt)
    uses.withLock { $0.byPath = [:] }
    size.withLock { $0 = 0 }
  }

  /// Deletes every entry for `primary`.
  func remove(primary: String) {
    let folder = directory.appendingPathComponent(primary).path
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
      remove(folder + "/" + name)
    }
    rmdir(folder)
  }

  /// Deletes the entry with these keys, if stored.
  func remove(primary: String, variant: String) {
    remove(directory.appendingPathComponent(primary).appendingPathComponent(variant).path)
  }

  /// Deletes every entry.
  func removeAll() {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    for name in names where !name.hasPrefix(".") {
      remove(primary: name)
    }
  }

  // MARK: - Files

  /// Deletes the file at `path`, counting it off, and its folder if that is left empty.
  private func remove(_ path: String) {
    let old = Self.fileSize(path)
    uses.withLock { _ = $0.byPath.removeValue(forKey: path) }
    guard Self.unlinkEntry(path) else { return }
    size.withLock { $0 = max(0, $0 - old) }
  }

  /// Deletes the entry file at `path`, then its folder if that is empty (`rmdir` deletes
  /// only an empty one): an evicted URL's folder would otherwise take a directory for ever
  /// (a 4 KiB block on ext4), and a cache of many distinct URLs outgrow its budget.
  private static func unlinkEntry(_ path: String) -> Bool {
    guard unlink(path) == 0 else { return false }
    rmdir(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
    return true
  }

  /// Notes that this process used the file at `path` now.
  private func used(_ path: String) {
    uses.withLock { uses in
      uses.tick += 1
      uses.byPath[path] = uses.tick
    }
  }

  /// The salt in `directory`'s `.salt` file, made (32 random bytes, in hexadecimal) if
  /// there is none or it is not one: written beside it and linked into place, so that of two
  /// processes making one at once, both end up reading the one that won (where the file
  /// system has no hard links, renamed into place). A replaced salt orphans the entries made
  /// with the old one, so they are deleted. A new salt is `candidate` when given (a store
  /// putting its own back), else random.
  private static func salt(in directory: URL, candidate: String? = nil) -> String? {
    let path = directory.appendingPathComponent(".salt").path
    func existing() -> String? {
      guard case .contents(let bytes) = FileBytes.load(path, atMost: 64), bytes.count == 64,
        bytes.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
      else { return nil }
      return String(decoding: bytes, as: UTF8.self)
    }
    if let salt = existing() { return salt }
    // A salt that cannot be read now is not damaged: nothing is replaced or wiped (the
    // store is refused), as it would be for a salt that is not one.
    let found = FileBytes.load(path, atMost: 64)
    if found == .unavailable { return nil }
    let damaged = found != .missing
    var generator = SystemRandomNumberGenerator()
    let fresh =
      candidate
      ?? (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }
      .map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
    let temporary = directory.appendingPathComponent(".salt-\(UUID().uuidString)").path
    guard FileBytes.writeAtomically([Data(fresh.utf8)], to: temporary) else { return nil }
    defer { unlink(temporary) }
    if damaged {
      guard rename(temporary, path) == 0 else { return nil }
      for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
      where !name.hasPrefix(".") {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
      }
      return fresh
    }
    if link(temporary, path) == 0 { return fresh }
    if errno != EEXIST { return rename(temporary, path) == 0 ? fresh : nil }
    return existing()
  }

  /// Deletes the least recently used files until the directory is within nine tenths of
  /// the budget (so that trimming is not needed again at once), counting them afresh.
  private func trim() {
    var files = self.files()
    var total = files.reduce(0) { $0 + $1.size }
    let order = uses.withLock { $0.byPath }
    files.sort { ($0.used, order[$0.path] ?? 0) < ($1.used, order[$1.path] ?? 0) }
    var index = 0
    var deleted: [String] = []
    while total > capacity / 10 * 9, index < files.count {
      if Self.unlinkEntry(files[index].path) {
        total -= files[index].size
        deleted.append(files[index].path)
      }
      index += 1
    }
    uses.withLock { uses in for path in deleted { uses.byPath[path] = nil } }
    size.withLock { $0 = total }
  }

  /// Every entry file, with its size and last use; forgotten temporary files (an hour
  /// old) are deleted on the way.
  private func files() -> [(path: String, size: Int, used: Double)] {
    var found: [(path: String, size: Int, used: Double)] = []
    let manager = FileManager.default
    let now = Date().timeIntervalSince1970
    for folder in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] {
      let folderPath = directory.path + "/" + folder
      if folder.hasPrefix("."), folder != ".salt" {
        // A forgotten temporary salt or probe file.
        let modified =
          (try? manager.attributesOfItem(atPath: folderPath)[.modificationDate])
          .flatMap { $0 as? Date }?.timeIntervalSince1970 ?? now
        if now - modified > 3600 { unlink(folderPath) }
        continue
      }
      for name in (try? manager.contentsOfDirectory(atPath: folderPath)) ?? [] {
        let path = folderPath + "/" + name
        guard let attributes = try? manager.attributesOfItem(atPath: path),
          let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970
        else { continue }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        if name.hasPrefix(".") {
          if now - modified > 3600 { unlink(path) }
          continue
        }
        found.append((path, size, modified))
      }
    }
    return found
  }

  private static func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
  }

  private static func reason(_ error: any Error) -> String {
    (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
  }

  // MARK: - Format

  /// The file for `entry`: format line, digest line, metadata line, body.
  static func encode(_ entry: CacheEntry) -> Data? {
    guard let metadata = try? JSONEncoder().encode(entry.metadata) else { return nil }
    var rest = metadata
    rest.append(UInt8(ascii: "\n"))
    rest.append(entry.body)
    var file = format
    file.append(Data(SHA256.hex(rest).utf8))
    file.append(UInt8(ascii: "\n"))
    file.append(rest)
    return file
  }

  /// The entry a file holds, or `nil` when it is not one, whole and unchanged.
  static func decode(_ file: Data) -> CacheEntry? {
    guard file.starts(with: format) else { return nil }
    let afterFormat = file.index(file.startIndex, offsetBy: format.count)
    let digestEnd = afterFormat + 64
    guard file.count > format.count + 65, file[digestEnd] == UInt8(ascii: "\n") else {
      return nil
    }
    let digest = String(decoding: file[afterFormat..<digestEnd], as: UTF8.self)
    let rest = file[(digestEnd + 1)...]
    guard SHA256.hex(rest) == digest,
      let newline = rest.firstIndex(of: UInt8(ascii: "\n")),
      let metadata = try? JSONDecoder().decode(
        CacheEntry.Metadata.self, from: rest[rest.startIndex..<newline])
    else { return nil }
    return CacheEntry(metadata: metadata, body: Data(rest[(newline + 1)...]))
  }
}
