#if Tracing
  import Courier
  import InMemoryTracing
  import Tracing

  /// swift-distributed-tracing's in-memory tracer, with hex ids and the W3C trace context an
  /// OpenTelemetry tracer injects: `traceparent` (`00-<trace id>-<span id>-01`) and
  /// `tracestate`.
  struct W3CTestTracer: Tracer {
    let memory = InMemoryTracer(
      idGenerator: InMemoryTracer.IDGenerator(
        nextTraceID: { hex(.random(in: 1...(.max))) + hex(.random(in: 1...(.max))) },
        nextSpanID: { hex(.random(in: 1...(.max))) }))

    /// The spans that have ended, in the order they ended.
    var finishedSpans: [FinishedInMemorySpan] { memory.finishedSpans }

    /// The client spans that have ended, in the order they ended.
    var clientSpans: [FinishedInMemorySpan] { finishedSpans.filter { $0.kind == .client } }

    func startSpan<Instant: TracerInstant>(
      _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
      at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
      memory.startSpan(
        operationName, context: context(), ofKind: kind, at: instant(), function: function,
        file: fileID, line: line)
    }

    func activeSpan(identifiedBy context: ServiceContext) -> InMemorySpan? {
      memory.activeSpan(identifiedBy: context)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
      _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Carrier == Inject.Carrier {
      guard let span = context.inMemorySpanContext else { return }
      injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
      injector.inject("courier=tests", forKey: "tracestate", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
      _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Carrier == Extract.Carrier {}
  }

  /// `value` as 16 hex digits.
  private func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  extension FinishedInMemorySpan {
    /// The value of the attribute `name`.
    subscript(_ name: String) -> SpanAttribute? {
      attributes.get(name)
    }

    /// The `traceparent` this span's context is written as.
    var traceparent: String { "00-\(traceID)-\(spanID)-01" }
  }
#endif
