import Foundation
import Testing

@testable import Courier

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What reading a store's file finds, which decides whether the store deletes it: only what
/// is surely not its own (a link, a FIFO, an oversized file) goes; a file it may not read now
/// (on Apple platforms, one under data protection while the device is locked) stays.
@Suite("FileBytes.load: a file's contents, or why not")
struct FileBytesLoadTests {
  private func scratch() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("courier-filebytes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  @Test("a regular file within the limit is read whole; nothing there is missing")
  func contents() throws {
    let directory = try scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("entry")
    try Data("hello".utf8).write(to: file)
    #expect(FileBytes.load(file.path, atMost: 5) == .contents(Data("hello".utf8)))
    #expect(FileBytes.load(directory.appendingPathComponent("none").path, atMost: 5) == .missing)
  }

  @Test("a link, a FIFO, a directory or a file over the limit is foreign")
  func foreign() throws {
    let directory = try scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("entry")
    try Data("hello".utf8).write(to: file)
    let link = directory.appendingPathComponent("link")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
    let fifo = directory.appendingPathComponent("fifo")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    for path in [link.path, fifo.path, directory.path] {
      #expect(FileBytes.load(path, atMost: 1024) == .foreign, "\(path)")
    }
    #expect(FileBytes.load(file.path, atMost: 4) == .foreign)
  }

  @Test("an open refused for want of permission or descriptors is unavailable, not foreign")
  func unavailable() {
    // EPERM is what Apple platforms answer for a protected file while the device is locked.
    for code in [EPERM, EACCES, EMFILE, ENFILE, EIO] {
      #expect(FileBytes.openFailure(code) == .unavailable, "errno \(code)")
    }
    #expect(FileBytes.openFailure(ELOOP) == .foreign)
    #expect(FileBytes.openFailure(ENOENT) == .missing)
  }
}
