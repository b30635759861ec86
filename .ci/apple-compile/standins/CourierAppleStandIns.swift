// Stand-ins for the Apple Foundation members that Courier's Apple branches use and
// swift-corelibs-foundation lacks (or marks unavailable), so that .ci/apple-compile/check can
// type-check those branches on Linux. Each has the signature Apple documents (labels, types,
// optionality, async-ness, static or not), copied from the page named above it; the bodies
// are never run. Declarations here shadow corelibs' unavailable ones of the same name (this
// module imports FoundationNetworking, so Swift prefers its own).
//
// What this cannot mirror: the SDK's `Sendable` and isolation annotations on the types
// themselves (URLSession, URLSessionTask, InputStream … are corelibs' classes here), and
// Objective-C bridging (`AutoreleasingUnsafeMutablePointer`, CF types).

@_exported import Foundation
@_exported import FoundationNetworking
import Security  // the stand-in beside this file

// MARK: URLSessionConfiguration

extension URLSessionConfiguration {
  // developer.apple.com/documentation/foundation/urlsessionconfiguration/background(withidentifier:)
  //   class func background(withIdentifier identifier: String) -> URLSessionConfiguration
  public class func background(withIdentifier identifier: String) -> URLSessionConfiguration {
    fatalError("stand-in")
  }

  // developer.apple.com/documentation/foundation/urlsessionconfiguration/sessionsendslaunchevents
  //   var sessionSendsLaunchEvents: Bool { get set }
  public var sessionSendsLaunchEvents: Bool {
    get { fatalError("stand-in") }
    set { fatalError("stand-in") }
  }

  // developer.apple.com/documentation/foundation/urlsessionconfiguration/tlsminimumsupportedprotocolversion
  //   var tlsMinimumSupportedProtocolVersion: tls_protocol_version_t { get set }
  //   (macOS 10.15, iOS 13; the page of its sibling tlsMaximumSupportedProtocolVersion gives
  //   the same shape)
  public var tlsMinimumSupportedProtocolVersion: tls_protocol_version_t {
    get { fatalError("stand-in") }
    set { fatalError("stand-in") }
  }

  // developer.apple.com/documentation/foundation/urlsessionconfiguration/waitsforconnectivity
  //   var waitsForConnectivity: Bool { get set }   (corelibs: get-only)
  public var waitsForConnectivity: Bool {
    get { fatalError("stand-in") }
    set { fatalError("stand-in") }
  }
}

// MARK: URLSession

extension URLSession {
  // developer.apple.com/documentation/foundation/urlsession/alltasks
  //   var allTasks: [URLSessionTask] { get async }   (macOS 12, iOS 15, tvOS 15, watchOS 8)
  public var allTasks: [URLSessionTask] {
    get async { fatalError("stand-in") }
  }
}

// developer.apple.com/documentation/foundation/nsurlsessiondownloadtaskresumedata
//   let NSURLSessionDownloadTaskResumeData: String
public let NSURLSessionDownloadTaskResumeData: String = "NSURLSessionDownloadTaskResumeData"

// MARK: URLRequest

extension URLRequest {
  // developer.apple.com/documentation/foundation/urlrequest/allowsexpensivenetworkaccess
  //   var allowsExpensiveNetworkAccess: Bool { get set }
  public var allowsExpensiveNetworkAccess: Bool {
    get { fatalError("stand-in") }
    set { fatalError("stand-in") }
  }

  // developer.apple.com/documentation/foundation/urlrequest/allowsconstrainednetworkaccess
  //   var allowsConstrainedNetworkAccess: Bool { get set }
  public var allowsConstrainedNetworkAccess: Bool {
    get { fatalError("stand-in") }
    set { fatalError("stand-in") }
  }
}

// MARK: Authentication methods

// developer.apple.com/documentation/foundation/nsurlauthenticationmethodservertrust
//   let NSURLAuthenticationMethodServerTrust: String   (corelibs: unavailable)
public let NSURLAuthenticationMethodServerTrust: String = "NSURLAuthenticationMethodServerTrust"

// developer.apple.com/documentation/foundation/nsurlauthenticationmethodclientcertificate
//   let NSURLAuthenticationMethodClientCertificate: String   (corelibs: unavailable)
public let NSURLAuthenticationMethodClientCertificate: String =
  "NSURLAuthenticationMethodClientCertificate"

// developer.apple.com/documentation/foundation/urlprotectionspace/servertrust
//   var serverTrust: SecTrust? { get }   (corelibs: unavailable)
extension URLProtectionSpace {
  public var serverTrust: SecTrust? { fatalError("stand-in") }
}

// developer.apple.com/documentation/foundation/urlcredential/init(trust:)
//   convenience init(trust: SecTrust)   (corelibs: none)
extension URLCredential {
  public convenience init(trust: SecTrust) {
    fatalError("stand-in")
  }

  // developer.apple.com/documentation/foundation/urlcredential/init(identity:certificates:persistence:)
  //   init(identity: SecIdentity, certificates certArray: [Any]?,
  //     persistence: URLCredential.Persistence)   (corelibs: none)
  public convenience init(
    identity: SecIdentity, certificates certArray: [Any]?, persistence: URLCredential.Persistence
  ) {
    fatalError("stand-in")
  }
}

// MARK: Streams

extension Stream {
  // developer.apple.com/documentation/foundation/stream/getboundstreams(withbuffersize:inputstream:outputstream:)
  //   class func getBoundStreams(withBufferSize bufferSize: Int,
  //     inputStream: AutoreleasingUnsafeMutablePointer<InputStream?>?,
  //     outputStream: AutoreleasingUnsafeMutablePointer<OutputStream?>?)
  // Linux has no Objective-C runtime, so no AutoreleasingUnsafeMutablePointer: the pointers
  // are UnsafeMutablePointer here, which `&variable` arguments convert to alike.
  public class func getBoundStreams(
    withBufferSize bufferSize: Int, inputStream: UnsafeMutablePointer<InputStream?>?,
    outputStream: UnsafeMutablePointer<OutputStream?>?
  ) {
    fatalError("stand-in")
  }
}
