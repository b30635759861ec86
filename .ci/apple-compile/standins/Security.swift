// Stand-in for Apple's Security framework: the few declarations Courier's Apple-only code uses
// (the PKCS#12 identity, ServerTrust's evaluation and pins), with the signatures Apple documents, copied from the
// page named above each. Compiled as a module named Security, so `#if canImport(Security)`
// holds; the bodies are never run.
//
// What this cannot mirror: Core Foundation's bridging. On Apple platforms CFArray, CFData and
// CFError are CF types that `as` converts to NSArray, Data and Error; here they are aliases of
// the Swift types those conversions give, so `as? [SecCertificate]` and `as Data?` compile as
// they do there, without checking the bridging itself.

import Foundation

// developer.apple.com/documentation/security/sectrust: class SecTrust
public final class SecTrust {}
// developer.apple.com/documentation/security/seccertificate: class SecCertificate
public final class SecCertificate {}
// developer.apple.com/documentation/security/seckey: class SecKey
public final class SecKey {}
// developer.apple.com/documentation/security/secidentity: class SecIdentity
public final class SecIdentity {}

/// Core Foundation's array, as `as?` bridges it on Apple platforms.
public typealias CFArray = NSArray
/// Core Foundation's data, as `as` bridges it on Apple platforms.
public typealias CFData = Data
/// Core Foundation's error, an `Error` as the Foundation overlay makes it on Apple platforms
/// (`extension CFError: Error`), so that it goes where `any Error` is expected.
public final class CFError: Error {}
/// Core Foundation's string, as `as` bridges it on Apple platforms.
public typealias CFString = String
/// Core Foundation's dictionary, as `as` bridges it on Apple platforms.
public typealias CFDictionary = NSDictionary
/// MacTypes' result code (`typealias OSStatus = Int32`).
public typealias OSStatus = Int32

// developer.apple.com/documentation/security/errsecsuccess
//   var errSecSuccess: OSStatus { get }
public var errSecSuccess: OSStatus { 0 }

// developer.apple.com/documentation/security/ksecimportexportpassphrase
//   let kSecImportExportPassphrase: CFString
public let kSecImportExportPassphrase: CFString = "passphrase"
// developer.apple.com/documentation/security/ksecimportitemidentity
//   let kSecImportItemIdentity: CFString
public let kSecImportItemIdentity: CFString = "identity"
// developer.apple.com/documentation/security/ksecimportitemcertchain
//   let kSecImportItemCertChain: CFString
public let kSecImportItemCertChain: CFString = "chain"

// developer.apple.com/documentation/security/secpkcs12import(_:_:_:)
//   func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary,
//     _ items: UnsafeMutablePointer<CFArray?>) -> OSStatus
public func SecPKCS12Import(
  _ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>
) -> OSStatus {
  fatalError("stand-in")
}

// developer.apple.com/documentation/security/sectrustevaluatewitherror(_:_:)
//   func SecTrustEvaluateWithError(_ trust: SecTrust,
//     _ error: UnsafeMutablePointer<CFError?>?) -> Bool
public func SecTrustEvaluateWithError(
  _ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?
) -> Bool {
  fatalError("stand-in")
}

// developer.apple.com/documentation/security/sectrustcopycertificatechain(_:)
//   func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray?
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
  fatalError("stand-in")
}

// developer.apple.com/documentation/security/seccertificatecopykey(_:)
//   func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey?
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
  fatalError("stand-in")
}

// developer.apple.com/documentation/security/seckeycopyexternalrepresentation(_:_:)
//   func SecKeyCopyExternalRepresentation(_ key: SecKey,
//     _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData?
public func SecKeyCopyExternalRepresentation(
  _ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
  fatalError("stand-in")
}

/// Core Foundation's allocator (only ever passed as `nil` here).
public final class CFAllocator {}

// developer.apple.com/documentation/security/seccertificatecreatewithdata(_:_:)
//   func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData)
//     -> SecCertificate?
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData)
  -> SecCertificate?
{
  fatalError("stand-in")
}

// developer.apple.com/documentation/security/sectrustsetanchorcertificates(_:_:)
//   func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?)
//     -> OSStatus
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?)
  -> OSStatus
{
  fatalError("stand-in")
}

// developer.apple.com/documentation/security/sectrustsetanchorcertificatesonly(_:_:)
//   func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool)
//     -> OSStatus
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool)
  -> OSStatus
{
  fatalError("stand-in")
}

// developer.apple.com/documentation/security/tls_protocol_version_t
//   enum tls_protocol_version_t (.TLSv10 … .TLSv13, .DTLSv10, .DTLSv12): not declared here,
//   since swift-corelibs-foundation's FoundationNetworking declares it with those cases.
