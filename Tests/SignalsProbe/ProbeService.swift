import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit
import InMemoryTracing
import Logging
import Tracing

#if ServiceLifecycle
import HandlerKitSignalsService
import ServiceLifecycle
#endif

/// `service`: a daemon of the service tests, which runs its center in a `ServiceGroup` that shuts
/// down gracefully on SIGTERM:
///
///     service --db PATH --component C --log LOG --ready FILE --signals N [--prefix S]
///             [--handler-ms MS] [--grace-ms G] [--hold-file HOLD]
///
/// Starts a run of C with automatic delivery, registers N once consumers whose handler is
/// `PartitionProbe.slow` (`start <key> 0 <pid>`, waits for HOLD to exist when given, sleeps MS,
/// `end <key> 0 <pid>`), posts their
/// signals, and runs the group with a `SignalCenterService` whose grace period is G ms (default
/// 10,000); the group's second service creates the ready file (the group traps SIGTERM by then). When the group has ended (after a SIGTERM), it prints
/// `stopped <run id>` and exits 0.
///
/// `trace-post` and `trace-consume`: the two processes of the tracing test, each with an
/// `InMemoryTracer` bound to its task:
///
///     trace-post --db PATH --component C --signals N [--prefix S]
///     trace-consume --db PATH --component C --log LOG --signals N [--prefix S]
///
/// `trace-consume` registers N once consumers (`record`) and exits; `trace-post` posts the N
/// signals inside a span and prints `poster <trace id> <post span id>` for each post;
/// `trace-consume` run again delivers them and prints
/// `delivery <trace id> <linked trace id> <linked span id> <delivery key> <attempt>` for each
/// delivery span.
enum ServiceProbe {
    /// Runs the `service`, `trace-post` or `trace-consume` command; `false` for any other command.
    static func run(_ arguments: ProbeArguments, store: any SignalStore) async throws -> Bool {
        switch arguments.command {
        case "service":
            #if ServiceLifecycle
            try await service(arguments, store: store)
            #else
            throw ProbeError("the service command needs the package trait ServiceLifecycle")
            #endif
        case "trace-post": try await tracePost(arguments, store: store)
        case "trace-consume": try await traceConsume(arguments, store: store)
        default: return false
        }
        return true
    }

    #if ServiceLifecycle
    private static func service(_ arguments: ProbeArguments, store: any SignalStore) async throws {
        let log = try arguments.string("log")
        let prefix = try arguments.string("prefix", default: "s")
        let signals = try arguments.int("signals")
        ProbeContext.holdFile = arguments.values["hold-file"]
        let retry = RetryPolicy(firstDelay: .milliseconds(1), maximumDelay: .milliseconds(20))
        let center = try await SignalCenter.start(
            component: try arguments.string("component", default: "probe"), store: store,
            options: .init(retry: retry, onProblem: { say("problem \($0)") }))
        say("run \(center.runID) took over \(center.takeover.deadRuns.count) runs")
        let handler = try PartitionProbe.slowHandler(
            log: log, milliseconds: try arguments.int("handler-ms", default: 0))
        for index in 0..<signals {
            let consumer = try await center.register(handler, for: SignalID("\(prefix)\(index)"))
            say("consumer \(consumer) \(prefix)\(index) once")
        }
        for index in 0..<signals { _ = try await center.post(SignalID("\(prefix)\(index)"), payload: [:]) }
        let service = SignalCenterService(
            center, finishingWithin: .milliseconds(try arguments.int("grace-ms", default: 10_000)))
        var logger = Logger(label: "handlerkit-signals-probe")
        logger.logLevel = .notice
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: service),
                    .init(service: ReadyFile(path: try arguments.string("ready"), text: center.runID)),
                ],
                gracefulShutdownSignals: [.sigterm], logger: logger))
        try await group.run()
        say("stopped \(center.runID)")
    }
    #endif

    private static func tracePost(_ arguments: ProbeArguments, store: any SignalStore) async throws {
        let tracer = InMemoryTracer(idGenerator: randomIDs)
        let prefix = try arguments.string("prefix", default: "s")
        let signals = try arguments.int("signals")
        try await withTracer(tracer) {
            let center = try await SignalCenter.start(
                component: try arguments.string("component", default: "probe"), store: store,
                options: .init(deliversAutomatically: false))
            try await withSpan("probe poster") { _ in
                for index in 0..<signals {
                    try await center.post(SignalID("\(prefix)\(index)"), payload: ["item": index])
                }
            }
            try await center.stop()
        }
        for span in tracer.finishedSpans where span.operationName == "signal post" {
            say("poster \(span.traceID) \(span.spanID)")
        }
    }

    private static func traceConsume(_ arguments: ProbeArguments, store: any SignalStore) async throws {
        let tracer = InMemoryTracer(idGenerator: randomIDs)
        let log = try arguments.string("log")
        let prefix = try arguments.string("prefix", default: "s")
        let signals = try arguments.int("signals")
        try await withTracer(tracer) {
            let center = try await SignalCenter.start(
                component: try arguments.string("component", default: "probe"), store: store,
                options: .init(deliversAutomatically: false))
            let consumers = try await center.consumers()
            if consumers.isEmpty {
                for index in 0..<signals {
                    try await center.register(try Probe.recordHandler(log: log), for: SignalID("\(prefix)\(index)"))
                }
                say("registered \(signals)")
            } else {
                say("delivered \(try await center.deliverDue())")
            }
            try await center.stop()
        }
        for span in tracer.finishedSpans where span.operationName == "signal delivery" {
            let linked = span.links.first?.context.inMemorySpanContext
            let key = text(span.attributes["handlerkit.delivery_key"]?.toSpanAttribute())
            let attempt = text(span.attributes["handlerkit.attempt"]?.toSpanAttribute())
            say("delivery \(span.traceID) \(linked?.traceID ?? "-") \(linked?.spanID ?? "-") \(key) \(attempt)")
        }
    }

    /// Ids that differ between processes (the default ones count from 1 in each).
    private static let randomIDs = InMemoryTracer.IDGenerator(
        nextTraceID: { UUID().uuidString }, nextSpanID: { UUID().uuidString })

    private static func text(_ attribute: SpanAttribute?) -> String {
        switch attribute {
        case .string(let text)?: text
        case .int64(let number)?: "\(number)"
        case .int32(let number)?: "\(number)"
        default: "-"
        }
    }
}

#if ServiceLifecycle
/// A service that creates a file once its group runs (its signal handlers are in place by then).
private struct ReadyFile: Service {
    let path: String
    let text: String

    func run() async throws {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        try? await gracefulShutdown()
    }
}
#endif
