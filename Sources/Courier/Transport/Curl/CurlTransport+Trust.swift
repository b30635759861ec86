// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation

  extension CurlTransport {
    /// A ``ServerTrust`` as libcurl takes it: the certificate authorities as one PEM blob
    /// (`CURLOPT_CAINFO_BLOB`, which replaces the `CURLOPT_CAINFO` bundle), whether the
    /// system's directory of roots (`CURLOPT_CAPATH`) is turned off, and the pins.
    struct Trust: Sendable, Equatable {
      /// The PEM blob of the trusted roots; `nil` for libcurl's own (the system's).
      let authorities: Data?
      /// Whether `CURLOPT_CAPATH` is cleared, so that only `authorities` are trusted: libcurl
      /// reads the system's directory of roots (Debian's `/etc/ssl/certs`) beside any bundle
      /// it is given, blob or file.
      let clearsSystemDirectory: Bool
      /// `CURLOPT_PINNEDPUBLICKEY`: `sha256//…;sha256//…`; `nil` for no pinning.
      let pins: String?

      /// `resolved` for libcurl; with `trustsSystemRoots`, the system's bundle (`systemBundle`)
      /// goes into the blob after the authorities, since a blob replaces libcurl's bundle.
      init(_ resolved: ResolvedTrust, systemBundle: @autoclosure () -> Data? = Trust.systemBundle) {
        if resolved.anchors.isEmpty {
          authorities = nil
          clearsSystemDirectory = false
        } else {
          var blob = resolved.pemAnchors
          if resolved.trustsSystemRoots, let systemBundle = systemBundle() { blob += systemBundle }
          authorities = blob
          clearsSystemDirectory = !resolved.trustsSystemRoots
        }
        pins =
          resolved.pins.isEmpty
          ? nil : resolved.pins.map { "sha256//\($0.base64EncodedString())" }.joined(separator: ";")
      }

      /// Sets the trust on `easy`; libcurl's result codes.
      func apply(to easy: UnsafeMutableRawPointer) -> [Int32] {
        var codes: [Int32] = []
        if let authorities {
          codes.append(
            authorities.withUnsafeBytes {
              courier_curl_easy_setopt_blob(
                easy, Curl.Option.caInfoBlob, $0.baseAddress, $0.count)
            })
        }
        if clearsSystemDirectory {
          codes.append(courier_curl_easy_setopt_pointer(easy, Curl.Option.caPath, nil))
        }
        if let pins {
          codes.append(courier_curl_easy_setopt_pointer(easy, Curl.Option.pinnedPublicKey, pins))
        }
        return codes
      }

      /// The system's bundle of roots, read once: the first of the paths curl's build looks
      /// for its default `CURLOPT_CAINFO` at (its `configure`'s list: Debian and Ubuntu, Red
      /// Hat and Fedora, older Red Hat, FreeBSD, and the rest) that can be read.
      static let systemBundle: Data? = {
        let paths = [
          "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
          "/usr/share/ssl/certs/ca-bundle.crt", "/usr/local/share/certs/ca-root-nss.crt",
          "/etc/ssl/cert.pem",
        ]
        return paths.lazy.compactMap { FileManager.default.contents(atPath: $0) }.first
      }()
    }
  }
#endif
