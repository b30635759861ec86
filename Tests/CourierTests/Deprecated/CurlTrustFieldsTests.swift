#if canImport(FoundationNetworking)
  import Foundation
  import Testing

  @testable import Courier

  /// CurlTransport's trust settings before ``ServerTrust`` still work, as deprecated forwarders
  /// into `Configuration.trust`, until 1.1.
  @Suite("CurlTransport's certificateAuthorities and pinnedPublicKeys forward to trust")
  struct CurlTrustFieldsTests {
    /// Swift Testing refuses a deprecated test: the bodies live in a deprecated extension (see
    /// RenamedAPITests).
    protocol Exercises {
      func fields() throws
      func initializer() throws
    }

    struct Old: Exercises {}

    @Test("the configuration's old fields read and write its trust")
    func fields() throws { try (Old() as any Exercises).fields() }

    @Test("the old initializer makes the same trust")
    func initializer() throws { try (Old() as any Exercises).initializer() }
  }

  @available(*, deprecated, message: "exercises the deprecated trust fields on purpose")
  extension CurlTrustFieldsTests.Old {
    func fields() throws {
      let file = URL(fileURLWithPath: "/etc/service/ca.pem")
      let pin = Data(repeating: 3, count: 32).base64EncodedString()
      var configuration = CurlTransport.Configuration()
      #expect(configuration.certificateAuthorities == nil && configuration.pinnedPublicKeys.isEmpty)
      configuration.certificateAuthorities = file
      configuration.pinnedPublicKeys = [pin]
      #expect(
        configuration.trust
          == ServerTrust(certificateAuthorities: [.file(file)], pinnedPublicKeys: [pin]))
      #expect(configuration.certificateAuthorities == file)
      #expect(configuration.pinnedPublicKeys == [pin])
      configuration.certificateAuthorities = nil
      #expect(configuration.trust == ServerTrust(pinnedPublicKeys: [pin]))
    }

    func initializer() throws {
      let file = URL(fileURLWithPath: "/etc/service/ca.pem")
      let transport = CurlTransport(certificateAuthorities: file, pinnedPublicKeys: ["x"])
      #expect(
        transport.settings.configuration.trust
          == ServerTrust(certificateAuthorities: [.file(file)], pinnedPublicKeys: ["x"]))
    }
  }
#endif
