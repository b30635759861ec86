import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// What `dump`, `Mirror(reflecting:)`, a playground or a debugger's `po` of a value that
// holds headers or a query shows: the values its `description` shows, with credentials redacted by
// the one rule (``Credentials``), never the raw ones its stored properties hold.

extension HTTPHeaders: CustomReflectable {
  /// Each field's name and value as ``description`` shows it: a credential's value redacted.
  public var customMirror: Mirror {
    Mirror(self, children: Credentials().children(of: self), displayStyle: .dictionary)
  }
}

extension HTTPHeaders.Field: CustomReflectable {
  /// The name, and the value redacted when the name is a credential's.
  public var customMirror: Mirror {
    let value = Credentials().describe(headerValue: value, name: name)
    return Mirror(self, children: ["name": name, "value": value], displayStyle: .struct)
  }
}

extension Query: CustomReflectable {
  /// Each item's name and value: a credential's value redacted, as a URL's description
  /// redacts it.
  public var customMirror: Mirror {
    Mirror(self, children: Credentials().children(of: self), displayStyle: .dictionary)
  }
}

extension Query.Item: CustomReflectable {
  /// The name, and the value redacted when the name is a credential's.
  public var customMirror: Mirror {
    let value = Credentials().describe(self)
    return Mirror(self, children: ["name": name, "value": value], displayStyle: .struct)
  }
}

extension HTTPResponse: CustomReflectable {
  /// What ``description`` shows, in parts: status, URLs and headers with credentials
  /// redacted by the request's rules (the names it marked too), and the body's size.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "status": status, "url": credentials.describe(url),
        "headers": RedactedFields(credentials.children(of: headers)),
        "body": "\(body.count) bytes",
        "trailers": RedactedFields(credentials.children(of: trailers)),
        "attempt": attempt, "requestURL": credentials.describe(requestURL),
        "cacheStatus": cacheStatus,
      ],
      displayStyle: .struct)
  }
}

extension OutgoingRequest: CustomReflectable {
  /// Method, URL and headers with credentials redacted by this request's rules (the names
  /// middleware marked too), the body's size, and the rest as it is.
  public var customMirror: Mirror {
    let credentials = self.credentials
    return Mirror(
      self,
      children: [
        "method": method, "url": credentials.describe(url),
        "headers": RedactedFields(credentials.children(of: headers)),
        "body": RedactedFields.summary(of: body), "options": options, "cachePolicy": cachePolicy,
        "timeout": timeout as Any, "attempt": attempt, "credentialNames": credentialNames,
      ],
      displayStyle: .struct)
  }
}

extension TransportRequest: CustomReflectable {
  /// Method, URL and headers with credentials redacted, and the body's size.
  public var customMirror: Mirror {
    let credentials = Credentials(request: head)
    let fields = (head.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }
    let headers = HTTPHeaders(fields.map { HTTPHeaders.Field(name: $0.key, value: $0.value) })
    return Mirror(
      self,
      children: [
        "method": method, "url": credentials.describe(head.url),
        "headers": RedactedFields(credentials.children(of: headers)),
        "body": RedactedFields.summary(of: body),
      ],
      displayStyle: .struct)
  }
}

extension Credentials {
  /// `headers` as a mirror's children: each name with its value as descriptions show it.
  func children(of headers: HTTPHeaders) -> [Mirror.Child] {
    headers.fields.map { (label: $0.name, value: describe(headerValue: $0.value, name: $0.name)) }
  }

  /// `query` as a mirror's children: each name with its value as ``describe(_:)`` shows it.
  func children(of query: Query) -> [Mirror.Child] {
    query.items.map { (label: $0.name, value: describe($0)) }
  }

  /// A query item's value as a mirror shows it: the placeholder when the name is a
  /// credential's (a list's every value with it), otherwise the value itself.
  func describe(_ item: Query.Item) -> Any {
    isCredential(item.name) ? Redaction.placeholder : item.value
  }
}

/// Header fields already redacted, which a mirror shows as a dictionary of them.
private struct RedactedFields: CustomReflectable {
  let children: [Mirror.Child]

  init(_ children: [Mirror.Child]) {
    self.children = children
  }

  var customMirror: Mirror {
    Mirror(self, children: children, displayStyle: .dictionary)
  }

  /// A request body as a mirror shows it: its size, never its bytes (a form's password).
  static func summary(of body: TransportRequestBody?) -> String {
    guard let body else { return "none" }
    return body.length.map { "\($0) bytes" } ?? "a stream"
  }
}
