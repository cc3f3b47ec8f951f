import CoreMetrics
import Foundation
import HandlerKit
import Logging
import Tracing

/// The names of the metrics a ``SignalCenter`` records, each with the dimension `component`
/// (see <doc:RunningOnAServer>).
public enum SignalMetricNames {
    /// Counter: revisions posted by the center.
    public static let posts = "handlerkit_signals_posts"
    /// Counter: deliveries completed (their handler returned and the completion was recorded).
    public static let completed = "handlerkit_signals_deliveries_completed"
    /// Counter: deliveries whose handler threw and that run again later.
    public static let retried = "handlerkit_signals_deliveries_retried"
    /// Counter: deliveries parked as dead (out of attempts, or a handler or payload that cannot work).
    public static let dead = "handlerkit_signals_deliveries_dead"
    /// Counter: runs of the component found dead (their process crashed, was killed, lost its lease or
    /// was suspended) and taken over by this center. Runs that ended cleanly, whose durable consumers
    /// the center adopts, are not counted.
    public static let takeovers = "handlerkit_signals_takeovers"
    /// Timer: how long a handler ran, whether it returned or threw.
    public static let handlerDuration = "handlerkit_signals_handler_duration"
    /// Timer: from the post to the start of the handler, by the wall clocks of the posting and the
    /// delivering hosts.
    public static let latency = "handlerkit_signals_post_to_start"
    /// Gauge: the run's deliveries not yet completed (pending, waiting for a retry, or running),
    /// as found after each delivery pass and by ``SignalCenter/openDeliveries()``.
    public static let openDeliveries = "handlerkit_signals_open_deliveries"
}

/// The metadata keys of what the center and the stores log.
package enum SignalLogKey {
    package static let component = "handlerkit.component"
    package static let run = "handlerkit.run"
    package static let signal = "handlerkit.signal"
    package static let revision = "handlerkit.revision"
    package static let deliveryKey = "handlerkit.delivery_key"
    package static let attempt = "handlerkit.attempt"
    package static let handler = "handlerkit.handler"
    package static let error = "handlerkit.error"
    package static let store = "handlerkit.store"
}

/// The metrics of one center, made with the factory of its options.
struct SignalMetrics: Sendable {
    let posts: Counter
    let completed: Counter
    let retried: Counter
    let dead: Counter
    let takeovers: Counter
    let handlerDuration: CoreMetrics.Timer
    let latency: CoreMetrics.Timer
    let openDeliveries: Gauge

    init(component: String, factory: any MetricsFactory) {
        let dimensions = [("component", component)]
        posts = Counter(label: SignalMetricNames.posts, dimensions: dimensions, factory: factory)
        completed = Counter(label: SignalMetricNames.completed, dimensions: dimensions, factory: factory)
        retried = Counter(label: SignalMetricNames.retried, dimensions: dimensions, factory: factory)
        dead = Counter(label: SignalMetricNames.dead, dimensions: dimensions, factory: factory)
        takeovers = Counter(label: SignalMetricNames.takeovers, dimensions: dimensions, factory: factory)
        handlerDuration = CoreMetrics.Timer(
            label: SignalMetricNames.handlerDuration, dimensions: dimensions, factory: factory)
        latency = CoreMetrics.Timer(label: SignalMetricNames.latency, dimensions: dimensions, factory: factory)
        openDeliveries = Gauge(label: SignalMetricNames.openDeliveries, dimensions: dimensions, factory: factory)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, for a timer.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// What a post carries besides its payload's values, in the payload's member ``member`` (a name no
/// handler parameter can have): when it was posted, and the poster's trace context as the
/// instrument injected it. A store keeps it as part of the payload, so every store carries it.
struct PostContext: Sendable {
    /// The payload member that holds it.
    static let member = "@handlerkit"

    var posted: Date?
    var trace: [String: String] = [:]

    /// The member's value.
    var value: HandlerValue {
        var members: [String: HandlerValue] = [:]
        if let posted { members["posted"] = .number(String(posted.timeIntervalSince1970)) }
        if !trace.isEmpty { members["trace"] = .object(trace.mapValues { .string($0) }) }
        return .object(members)
    }

    /// Read from a payload's members; empty when they carry none (posted before it was recorded).
    init(members: [String: HandlerValue]) {
        guard case .object(let context)? = members[Self.member] else { return }
        if case .number(let text)? = context["posted"], let seconds = Double(text) {
            posted = Date(timeIntervalSince1970: seconds)
        }
        if case .object(let trace)? = context["trace"] {
            for (key, value) in trace { if case .string(let text) = value { self.trace[key] = text } }
        }
    }

    init(posted: Date, trace: [String: String]) {
        self.posted = posted
        self.trace = trace
    }
}

/// Injects a trace context into a post's context.
struct PostContextInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}

/// Extracts a poster's trace context from a post's context.
struct PostContextExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key]
    }
}

extension SignalCenter {
    /// Logs with the center's component and current run in the metadata.
    package func log(
        _ level: Logger.Level, _ message: @autoclosure () -> Logger.Message, _ metadata: Logger.Metadata = [:]
    ) {
        var logger = options.logger
        guard logger.logLevel <= level else { return }
        logger[metadataKey: SignalLogKey.component] = .string(component)
        logger[metadataKey: SignalLogKey.run] = .string(runID)
        logger.log(level: level, message(), metadata: metadata)
    }

    /// The metadata of a delivery's log lines.
    static func metadata(of delivery: ClaimedDelivery) -> Logger.Metadata {
        [
            SignalLogKey.signal: .string(delivery.signalID),
            SignalLogKey.revision: .stringConvertible(delivery.revision),
            SignalLogKey.deliveryKey: .string(delivery.key.rawValue),
            SignalLogKey.attempt: .stringConvertible(delivery.attempt),
        ]
    }

    /// Reports a problem the center survives: logged, and passed to `Options.onProblem`.
    func report(_ problem: SignalError) {
        log(.info, "signal center problem", [SignalLogKey.error: .string(problem.description)])
        options.onProblem?(problem)
    }

    /// Counts and logs what a run took over. Runs that died are takeovers (counted, and logged at
    /// `info`); runs that ended cleanly only handed their durable consumers over (logged at `debug`).
    func recordTakeover(_ report: TakeoverReport) {
        var metadata: Logger.Metadata = [
            "handlerkit.interrupted_deliveries": .stringConvertible(report.interruptedDeliveries),
            "handlerkit.adopted_consumers": .stringConvertible(report.adoptedConsumers),
            "handlerkit.removed_consumers": .stringConvertible(report.removedConsumers),
        ]
        if !report.endedRuns.isEmpty {
            metadata["handlerkit.ended_runs"] = .array(report.endedRuns.map { .string($0) })
        }
        guard !report.deadRuns.isEmpty else {
            if !report.endedRuns.isEmpty {
                log(.debug, "adopted the consumers of runs that ended cleanly", metadata)
            }
            return
        }
        metrics.takeovers.increment(by: Int64(report.deadRuns.count))
        metadata["handlerkit.dead_runs"] = .array(report.deadRuns.map { .string($0) })
        log(.info, "took over runs that were gone", metadata)
    }

    /// The post's context: now, and the trace context of `span` as the instrument injects it.
    static func postContext(of span: any Span) -> PostContext {
        var trace: [String: String] = [:]
        InstrumentationSystem.instrument.inject(span.context, into: &trace, using: PostContextInjector())
        return PostContext(posted: Date(), trace: trace)
    }

    /// Starts the span a delivery's handler runs in: a new trace, linked to the post's span when the
    /// post carried one, with the delivery key and attempt as attributes.
    func startDeliverySpan(_ delivery: ClaimedDelivery, context: PostContext) -> any Span {
        let span = InstrumentationSystem.tracer.startSpan(
            "signal delivery", context: ServiceContext.topLevel, ofKind: .consumer)
        if !context.trace.isEmpty {
            var poster = ServiceContext.topLevel
            InstrumentationSystem.instrument.extract(context.trace, into: &poster, using: PostContextExtractor())
            span.addLink(SpanLink(context: poster, attributes: [:]))
        }
        span.attributes["handlerkit.component"] = component
        span.attributes["handlerkit.signal"] = delivery.signalID
        span.attributes["handlerkit.revision"] = delivery.revision
        span.attributes["handlerkit.delivery_key"] = delivery.key.rawValue
        span.attributes["handlerkit.attempt"] = delivery.attempt
        return span
    }
}
