import Courier
import CourierTesting
import Foundation
import Testing

@Suite("StatusCodes")
struct StatusCodesTests {
  @Test("ranges, closed ranges, single codes and unions")
  func membership() {
    #expect(StatusCodes.success.contains(200) && StatusCodes.success.contains(299))
    #expect(!StatusCodes.success.contains(300) && !StatusCodes.success.contains(199))
    #expect(StatusCodes(200...299).contains(299))
    let codes: StatusCodes = [200, 304]
    #expect(codes.contains(304) && !codes.contains(201))
    let union = StatusCodes.success.union([304])
    #expect(union.contains(204) && union.contains(304) && !union.contains(301))
    #expect(StatusCodes(100..<200, 400..<500).contains(404))
  }

  @Test("the client's codes decide, and an endpoint's replace them")
  func clientAndEndpoint() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.acceptableStatusCodes = .success.union([304])
    let stub = StubTransport().on(.get, "/cached", StubResponse(status: 304))
      .on(.get, "/gone", StubResponse(status: 410, text: "gone"))
    let client = makeClient(transport: stub, configuration: configuration)
    #expect(try await client.response(for: Request<Data>(path: "cached")).status == 304)
    await #expect(throws: HTTPError.self) { try await client.send(Request<Data>(path: "gone")) }
    let tolerant = Request<String>(path: "gone", acceptableStatusCodes: [410])
    #expect(try await client.send(tolerant) == "gone")
    let strict = Request<Data>(path: "cached", acceptableStatusCodes: [200])
    await #expect(throws: HTTPError.self) { try await client.send(strict) }
  }
}
