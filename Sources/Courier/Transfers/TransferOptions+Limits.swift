import Foundation

extension TransferOptions {
  /// The options an upload runs with: `options` as given, or, when none are, the client's
  /// `maximumResponseBytes` as the limit of the answer (it is kept in memory).
  static func upload(_ options: TransferOptions?, maximumResponseBytes: Int?) -> TransferOptions {
    options ?? TransferOptions(maximumBytes: maximumResponseBytes)
  }

  /// The size limit of a transfer's response body, as ``maximumBytes`` documents it: a
  /// download's is its options' own, `nil` (no limit) unless given, since its body goes to
  /// disk; an upload's is as ``upload(_:maximumResponseBytes:)`` says. One rule for
  /// ``HTTPClient``'s transfers and for both kinds of ``BackgroundSession``.
  static func responseLimit(
    of kind: BackgroundTransfer.Kind, options: TransferOptions?, maximumResponseBytes: Int?
  ) -> Int? {
    switch kind {
    case .download: options?.maximumBytes
    case .upload: upload(options, maximumResponseBytes: maximumResponseBytes).maximumBytes
    }
  }
}
