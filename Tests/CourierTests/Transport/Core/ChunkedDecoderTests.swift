import Foundation
import Testing

@testable import Courier

/// HTTP/1.1's chunked coding undone as bytes arrive, in any pieces: the data, the trailers,
/// the end; and hostile input refused with a clear error, never a crash.
@Suite("ChunkedDecoder: a chunked body undone as it arrives")
struct ChunkedDecoderTests {
  static let body = Data(
    "5\r\nhello\r\n7;name=value\r\n, world\r\n1 \r\n!\r\n0\r\nX-Checksum: abc\r\nX-Empty:\r\n\r\n"
      .utf8)

  /// Feeds `pieces` in turn; returns the data, and whether the body had ended after each.
  static func decode(_ pieces: [Data]) throws(HTTPError) -> (Data, [Bool], ChunkedDecoder) {
    var decoder = ChunkedDecoder()
    var data = Data()
    var ends: [Bool] = []
    for piece in pieces {
      data.append(try piece.decoded(by: &decoder))
      ends.append(decoder.isComplete)
    }
    return (data, ends, decoder)
  }

  static func decode(_ text: String) throws(HTTPError) -> Data {
    try decode([Data(text.utf8)]).0
  }

  @Test("chunks with extensions, then trailers: the data, the fields, the end")
  func whole() throws {
    let (data, ends, decoder) = try Self.decode([Self.body])
    #expect(String(decoding: data, as: UTF8.self) == "hello, world!")
    #expect(ends == [true])
    #expect(
      decoder.trailers == [
        HTTPHeaders.Field(name: "X-Checksum", value: "abc"),
        HTTPHeaders.Field(name: "X-Empty", value: ""),
      ])
  }

  @Test("split anywhere, byte by byte or in two, it decodes the same")
  func anySplit() throws {
    let bytes = Self.body
    let (oneByOne, ends, decoder) = try Self.decode(bytes.map { Data([$0]) })
    #expect(String(decoding: oneByOne, as: UTF8.self) == "hello, world!")
    #expect(ends.firstIndex(of: true) == bytes.count - 1)  // ended by its very last byte
    #expect(decoder.trailers.count == 2)
    for cut in 0...bytes.count {
      let (data, ends, _) = try Self.decode([bytes.prefix(cut), bytes.dropFirst(cut)])
      #expect(String(decoding: data, as: UTF8.self) == "hello, world!", "cut at \(cut)")
      #expect(ends.last == true, "cut at \(cut)")
    }
  }

  @Test("bare LF line ends are taken; bytes after the end are ignored")
  func lenient() throws {
    let (data, ends, _) = try Self.decode([Data("3\nabc\n0\n\nHTTP/1.1 200 OK\r\n".utf8)])
    #expect(data == Data("abc".utf8))
    #expect(ends == [true])
  }

  @Test("the last chunk without the trailer section's blank line is no end yet")
  func notYetEnded() throws {
    let (data, ends, _) = try Self.decode([Data("3\r\nabc\r\n0\r\n".utf8)])
    #expect(data == Data("abc".utf8))
    #expect(ends == [false])
  }

  @Test("a copy decodes on its own: a transport that could not take the bytes decodes them again")
  func value() throws {
    var decoder = ChunkedDecoder()
    var copy = decoder
    let bytes = Data("3\r\nabc\r\n".utf8)
    let first = try bytes.decoded(by: &copy)
    let again = try bytes.decoded(by: &decoder)
    #expect(first == again)
    #expect(again == Data("abc".utf8))
  }

  @Test(
    "hostile input is refused with a clear error",
    arguments: [
      ("zz\r\n", "not hexadecimal"),
      ("\r\n", "not hexadecimal"),
      ("-1\r\n", "not hexadecimal"),
      ("5x\r\nhello\r\n", "not hexadecimal"),
      ("8000000000000000\r\n", "past 63 bits"),
      ("ffffffffffffffffffff\r\n", "past 63 bits"),
      ("3\r\nabcd\r\n", "longer than its size"),
      ("1;" + String(repeating: "x", count: 9000) + "\r\n", "longer than 8192 bytes"),
      ("0\r\nX: " + String(repeating: "y", count: 9000), "longer than 8192 bytes"),
      (
        "0\r\n"
          + String(repeating: "X-Field: " + String(repeating: "z", count: 1000) + "\r\n", count: 70),
        "past 65536 bytes"
      ),
    ])
  func hostile(_ input: String, _ reason: String) throws {
    let error = #expect(throws: HTTPError.self) { _ = try Self.decode(input) }
    guard case .transport(let urlError) = try #require(error) else {
      return #expect(Bool(false), "\(String(describing: error))")
    }
    #expect(urlError.code == .badServerResponse)
    #expect(urlError.localizedDescription.contains("chunked response body"))
    #expect(urlError.localizedDescription.contains(reason))
  }

  @Test("the largest chunk size is taken, its data awaited")
  func largest() throws {
    let (data, ends, _) = try Self.decode([Data("7fffffffffffffff\r\nab".utf8)])
    #expect(data == Data("ab".utf8))
    #expect(ends == [false])
  }

  @Test("a malformed trailer line is dropped, as libcurl drops it")
  func malformedTrailer() throws {
    let (_, ends, decoder) = try Self.decode([
      Data("0\r\nno colon\r\n folded: x\r\n: empty\r\nGood: 1\r\n\r\n".utf8)
    ])
    #expect(ends == [true])
    #expect(decoder.trailers == [HTTPHeaders.Field(name: "Good", value: "1")])
  }
}

extension Data {
  /// These bytes through `decoder`.
  fileprivate func decoded(by decoder: inout ChunkedDecoder) throws(HTTPError) -> Data {
    var result: Result<Data, HTTPError> = .success(Data())
    withUnsafeBytes { bytes in
      result = Result { () throws(HTTPError) in try decoder.decode(bytes) }
    }
    return try result.get()
  }
}
