import CoreMetrics
import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import InMemoryTracing
import Logging
import MetricsTestKit
import TestWaiting
import Testing
import Tracing

/// A log handler that keeps every entry, for the tests to read.
private final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    struct Entry {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let lock = NSLock()
    private var recorded: [Entry] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.lock()
        recorded.append(
            Entry(
                level: event.level, message: event.message.description,
                metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        lock.unlock()
    }

    var entries: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

/// A handler that fails when told to.
private struct Failure: Error {}

@Suite("Signals: what a center logs, counts and traces")
struct ObservabilityTests {
    let registry = HandlerRegistry()

    init() throws {
        try registry.register(
            HandlerTable(
                module: "Observability",
                handlers: [
                    HandlerDescriptor(id: "Observed.succeed", parameters: [], invoke: { _ in }),
                    HandlerDescriptor(id: "Observed.fail", parameters: [], invoke: { _ in throw Failure() }),
                ]))
    }

    private func options(
        metrics: TestMetrics = TestMetrics(), logger: Logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    ) -> SignalCenter.Options {
        SignalCenter.Options(
            retry: RetryPolicy(maximumAttempts: 2, firstDelay: .milliseconds(1), maximumDelay: .milliseconds(1)),
            deliversAutomatically: false, logger: logger, metricsFactory: metrics)
    }

    /// Posts `succeeding` and `failing` to a fresh center's consumers and delivers until neither is due.
    private func deliverOneOfEach(_ center: SignalCenter) async throws {
        try await center.register(try Handler(id: "Observed.succeed", registry: registry), for: "succeeding")
        try await center.register(try Handler(id: "Observed.fail", registry: registry), for: "failing")
        try await center.post("succeeding")
        try await center.post("failing")
        _ = try await center.deliverDue()
        // The failing delivery's second and last attempt, a millisecond later.
        var open = 0
        try await TestWait.until(
            "the failing delivery's last attempt", every: .milliseconds(2), seen: { "\(open) open" }
        ) {
            open = try await center.openDeliveries()
            if open == 0 { return true }
            _ = try await center.deliverDue()
            return false
        }
    }

    @Test func theMetricsCountPostsCompletionsRetriesDeadDeliveriesAndTakeovers() async throws {
        let metrics = TestMetrics()
        let store = InMemorySignalStore()
        let center = try await SignalCenter.start(
            component: "app", store: store, registry: registry, options: options(metrics: metrics))
        try await deliverOneOfEach(center)
        let app = [("component", "app")]
        #expect(try metrics.expectCounter(SignalMetricNames.posts, app).totalValue == 2)
        #expect(try metrics.expectCounter(SignalMetricNames.completed, app).totalValue == 1)
        #expect(try metrics.expectCounter(SignalMetricNames.retried, app).totalValue == 1)
        #expect(try metrics.expectCounter(SignalMetricNames.dead, app).totalValue == 1)
        // Three handler runs, each timed, and each one's wait since its post.
        #expect(try metrics.expectTimer(SignalMetricNames.handlerDuration, app).values.count == 3)
        let latencies = try metrics.expectTimer(SignalMetricNames.latency, app).values
        #expect(latencies.count == 3 && latencies.allSatisfy { $0 >= 0 })
        #expect(try metrics.expectGauge(SignalMetricNames.openDeliveries, app).lastValue == 0)

        // A suspended run counts as gone: the next center of the component takes it over.
        try await center.register(try Handler(id: "Observed.succeed", registry: registry), for: "later")
        try await center.suspend(finishingWithin: .zero)
        let taker = TestMetrics()
        let next = try await SignalCenter.start(
            component: "app", store: store, registry: registry, options: options(metrics: taker))
        #expect(try taker.expectCounter(SignalMetricNames.takeovers, app).totalValue == 1)
        try await next.stop()
        try await center.stop()
    }

    @Test func theLogsCarryTheDeliveryInMetadataAndOnlyHandlerFailuresAreAboveInfo() async throws {
        let handler = RecordingLogHandler()
        let center = try await SignalCenter.start(
            component: "app", store: InMemorySignalStore(), registry: registry,
            options: options(logger: Logger(label: "test") { _ in handler }))
        try await deliverOneOfEach(center)
        try await center.stop()
        let entries = handler.entries
        #expect(entries.allSatisfy { $0.metadata["handlerkit.component"] == "app" })
        #expect(entries.allSatisfy { $0.metadata["handlerkit.run"] == .string(center.runID) })
        let started = entries.filter { $0.message == "delivery started" }
        #expect(started.count == 3)
        for entry in started {
            for key in ["handlerkit.signal", "handlerkit.revision", "handlerkit.delivery_key", "handlerkit.attempt"] {
                #expect(entry.metadata[key] != nil, "\(key) in \(entry.metadata)")
            }
            // The message is constant: what varies is in the metadata.
            #expect(!entry.message.contains("failing") && !entry.message.contains("succeeding"))
        }
        // The failing handler's two attempts: the first is retried (a warning), the second is its last
        // (the delivery is dead: an error). Nothing else is above info.
        let above = entries.filter { $0.level > .info }
        #expect(above.map(\.level) == [.warning, .error], "\(entries.map { "\($0.level): \($0.message)" })")
        let retried = try #require(above.first)
        #expect(retried.message == "handler threw; its delivery runs again later")
        let dead = try #require(above.last)
        #expect(dead.message == "delivery is dead: it runs again only when requeued")
        for (entry, attempt) in [(retried, "1"), (dead, "2")] {
            #expect(entry.metadata["handlerkit.signal"] == "failing")
            #expect(entry.metadata["handlerkit.handler"] == "Observed.fail", "\(entry.metadata)")
            #expect(entry.metadata["handlerkit.attempt"]?.description == attempt)
            #expect(entry.metadata["handlerkit.delivery_key"]?.description.hasSuffix("/1") == true)
            #expect(entry.metadata["handlerkit.error"]?.description.contains("Failure") == true, "\(entry.metadata)")
        }
        #expect(retried.metadata["handlerkit.retry_in_seconds"] != nil, "\(retried.metadata)")
        #expect(dead.metadata["handlerkit.retry_in_seconds"] == nil, "\(dead.metadata)")
    }

    @Test func aDeliveryRunsInASpanLinkedToThePostsSpan() async throws {
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            let center = try await SignalCenter.start(
                component: "app", store: InMemorySignalStore(), registry: registry, options: options())
            try await center.register(try Handler(id: "Observed.succeed", registry: registry), for: "traced")
            try await withSpan("request") { _ in _ = try await center.post("traced") }
            #expect(try await center.deliverDue() == 1)
            try await center.stop()
        }
        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "request" })
        let post = try #require(spans.first { $0.operationName == "signal post" })
        let delivery = try #require(spans.first { $0.operationName == "signal delivery" })
        #expect(post.traceID == request.traceID && post.parentSpanID == request.spanID && post.kind == .producer)
        #expect(delivery.kind == .consumer && delivery.traceID != request.traceID)
        #expect(delivery.links.count == 1)
        #expect(delivery.links.first?.context.inMemorySpanContext?.spanID == post.spanID)
        #expect(delivery.links.first?.context.inMemorySpanContext?.traceID == post.traceID)
        #expect(delivery.attributes["handlerkit.attempt"]?.toSpanAttribute() == .int64(1))
        if case .string(let key)? = delivery.attributes["handlerkit.delivery_key"]?.toSpanAttribute() {
            #expect(!key.isEmpty)
        } else {
            Issue.record("no delivery key attribute")
        }
    }

    @Test func aRestartAfterACleanStopIsNeitherCountedNorLoggedAsATakeover() async throws {
        let store = InMemorySignalStore()
        let first = try await SignalCenter.start(
            component: "app", store: store, registry: registry, options: options())
        try await first.register(try Handler(id: "Observed.succeed", registry: registry), for: "later")
        try await first.stop()
        let metrics = TestMetrics()
        let handler = RecordingLogHandler()
        let next = try await SignalCenter.start(
            component: "app", store: store, registry: registry,
            options: options(metrics: metrics, logger: Logger(label: "test") { _ in handler }))
        #expect(next.takeover.deadRuns.isEmpty && next.takeover.endedRuns == [first.runID], "\(next.takeover)")
        #expect(next.takeover.adoptedConsumers == 1)
        #expect((try? metrics.expectCounter(SignalMetricNames.takeovers, [("component", "app")]))?.totalValue ?? 0 == 0)
        let entries = handler.entries
        #expect(!entries.contains { $0.level >= .info }, "\(entries.map { "\($0.level): \($0.message)" })")
        let adopted = entries.filter { $0.message == "adopted the consumers of runs that ended cleanly" }
        #expect(adopted.count == 1 && adopted.first?.level == .debug, "\(entries.map(\.message))")
        #expect(adopted.first?.metadata["handlerkit.ended_runs"] == .array([.string(first.runID)]))
        try await next.stop()
    }
}
