// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import Glibc

  /// Whether the machine is offline, asked when a connection could not be made, so that
  /// `CurlTransport` reports `URLError.notConnectedToInternet` as URLSession does on Apple
  /// platforms (where the system knows it has no network path) instead of
  /// `cannotConnectToHost` or `cannotFindHost`.
  struct OfflineProbe: Sendable {
    /// Whether no network could be reached now.
    let isOffline: @Sendable () -> Bool

    /// The machine's own answer: offline when no interface but loopback is up and running
    /// with an address other than an IPv6 link-local one (`getifaddrs`).
    static let system = OfflineProbe { !hasNetworkInterface() }

    /// Whether an interface other than loopback is up and running (`IFF_UP`, `IFF_RUNNING`)
    /// with an IPv4 address or an IPv6 one beyond its link.
    static func hasNetworkInterface() -> Bool {
      var first: UnsafeMutablePointer<ifaddrs>?
      // Unknown: count as online, so that nothing is reported that may not be true.
      guard getifaddrs(&first) == 0 else { return true }
      defer { freeifaddrs(first) }
      let wanted = UInt32(IFF_UP) | UInt32(IFF_RUNNING)
      var next = first
      while let entry = next?.pointee {
        next = entry.ifa_next
        guard entry.ifa_flags & wanted == wanted, entry.ifa_flags & UInt32(IFF_LOOPBACK) == 0,
          let address = entry.ifa_addr
        else { continue }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
          return true
        case AF_INET6:
          let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
            $0.pointee.sin6_addr.__in6_u.__u6_addr8
          }
          // fe80::/10 reaches only the link, never the internet.
          if !(bytes.0 == 0xfe && bytes.1 & 0xc0 == 0x80) { return true }
        default:
          continue
        }
      }
      return false
    }
  }
#endif
