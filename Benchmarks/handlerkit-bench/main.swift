// handlerkit-bench: how fast handlers are rebuilt and called, against baselines (a closure
// looked up in a dictionary, JSONDecoder, NSKeyedArchiver).
// Run: swift run -c release handlerkit-bench
//      swift run -c release handlerkit-bench call.handler   (only the figures whose name starts with the filter)
//      swift run -c release handlerkit-bench extension.   (an app extension's start, delivery and exit)
//      bash Scripts/with-postgres.sh swift run -c release handlerkit-bench signals_pg.   (the PostgreSQL signal store)
//      bash Scripts/with-postgres.sh swift run -c release --traits PostgreSQL handlerkit-bench rescue_pg.   (rescue times)
//      bash Scripts/with-postgres.sh swift run -c release --traits PostgreSQL handlerkit-bench pool_pg.   (the store's connections against PostgresClient)
//      bash Scripts/with-postgres.sh swift run -c release --traits PostgreSQL handlerkit-bench queue_pg.   (a work queue's workers)
//      bash Scripts/with-postgres.sh swift run -c release --traits PostgreSQL handlerkit-bench backlog_pg.   (a store holding 1,000,000 pending deliveries)
// Prints one figure per line as `name: value unit`. Each figure is the best of several rounds.
import Foundation
import HandlerKit

// The signals and promise figures start this executable again as their consuming process (the
// extension figures start handlerkit-bench-extension).
if try await SignalsBenchmark.runChildIfAsked() { exit(0) }
if try await PromiseBenchmark.runChildIfAsked() { exit(0) }
if try await RescueBenchmark.runChildIfAsked() { exit(0) }
if try await QueueBenchmark.runChildIfAsked() { exit(0) }
if try await BacklogBenchmark.runChildIfAsked() { exit(0) }

/// Keeps results observable so the optimizer cannot drop the measured work.
nonisolated(unsafe) var sink = 0

enum Mail {
    // Built through the HandlerKit plugin like any client: the registry entry, the reference and the
    // typed call `Mail.callFetchedHandler(_:…)` measured below are the generated ones.
    @handler
    static func fetched(name: String, flag: Bool, count: Int, ratio: Double) {
        sink &+= name.utf8.count &+ (flag ? 1 : 0) &+ count &+ Int(ratio)
    }
}

let registry = HandlerRegistry()
try registry.register(.handlerkit_bench)

let document = try Mail.fetchedHandler(
    name: "inbox-sync-service", flag: true, count: 4096, ratio: 0.125, registry: registry
)
.jsonData()
let documentBytes = [UInt8](document)

let filter = CommandLine.arguments.dropFirst().first

// The PostgreSQL signal store's figures (and its consumer child processes): SignalsPostgresBench.swift.
if let filter, filter.hasPrefix("signals_pg") {
    #if PostgreSQL
    try await SignalsPostgresBench.main(Array(CommandLine.arguments.dropFirst()))
    exit(0)
    #else
    print(
        "signals_pg.: built without the package trait PostgreSQL; run `swift run -c release --traits PostgreSQL handlerkit-bench signals_pg.`"
    )
    exit(1)
    #endif
}

// The PostgreSQL store's connections against PostgresClient: PostgresPoolBench.swift.
if let filter, filter.hasPrefix("pool_pg") {
    #if PostgreSQL
    try await PostgresPoolBench.main()
    exit(0)
    #else
    print("pool_pg.: built without the package trait PostgreSQL; add `--traits PostgreSQL`")
    exit(1)
    #endif
}

// Rescue times on PostgreSQL after a kill and a network partition: RescueBenchmark.swift.
if let filter, filter.hasPrefix("rescue_pg") {
    #if PostgreSQL
    if let url = ProcessInfo.processInfo.environment["HANDLERKIT_POSTGRES_URL"] {
        try await RescueBenchmark.runPostgres(url: url)
    } else {
        print("rescue_pg.: HANDLERKIT_POSTGRES_URL is not set; run it through Scripts/with-postgres.sh")
    }
    exit(0)
    #else
    print("rescue_pg.: built without the package trait PostgreSQL; add `--traits PostgreSQL`")
    exit(1)
    #endif
}

/// Nanoseconds per operation of `name`: the best of `rounds` rounds of `iterations` calls.
func measure(
    _ name: String, _ iterations: Int = 200_000, rounds: Int = 7, _ body: () throws -> Void
) rethrows -> Double? {
    if let filter, !name.hasPrefix(filter) { return nil }
    var best = Double.infinity
    let clock = ContinuousClock()
    for _ in 0..<rounds {
        let start = clock.now
        for _ in 0..<iterations { try body() }
        let elapsed = clock.now - start
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        best = min(best, nanoseconds / Double(iterations))
    }
    return best
}

func report(_ name: String, _ value: Double?, _ unit: String = "ns") {
    guard let value else { return }
    print("\(name): \(String(format: "%.1f", value)) \(unit)")
}

// Baseline: a closure looked up by a ~20-byte key and called with 3 arguments.
let closures: [String: @Sendable (String, Bool, Int) -> Void] = [
    "Mail.fetchedWithCount": { name, flag, count in sink &+= name.utf8.count &+ (flag ? 1 : 0) &+ count },
    "Mail.otherHandlerName": { _, _, _ in },
]
var key = "Mail.fetchedWithCount"
let direct = measure("call.direct_dictionary_closure_ns", 2_000_000) {
    closures[key]?("inbox-sync-service", true, 4096)
}

let handler = try Handler(json: documentBytes, registry: registry)
// 3 bound values and 1 call-time value, through the generated typed call (the value is checked by
// the compiler and passed as a Double)…
let call = try measure("call.handler_ns", 1_000_000) { try Mail.callFetchedHandler(handler, ratio: 0.5) }
// …and through the dynamic form, whose call-time values are any Sendable values looked up by name.
let callDictionary = try measure("call.handler_dictionary_ns", 1_000_000) {
    try handler.callSynchronously(["ratio": 0.5])
}
let callBoundOnly = try measure("call.handler_bound_only_ns", 1_000_000) { try handler.callSynchronously() }

struct PlainDocument: Codable {
    struct Bound: Codable {
        var name: String
        var flag: Bool
        var count: Int
        var ratio: Double
    }
    var bound: Bound
    var id: String
    var version: Int
}
let decoder = JSONDecoder()
let jsonDecoder = try measure("decode.jsondecoder_ns", 50_000) {
    sink &+= try decoder.decode(PlainDocument.self, from: document).bound.count
}

let decodeAndCall = try measure("decode_and_call.handler_ns", 200_000) {
    try Handler(json: documentBytes, registry: registry).callSynchronously()
}

let archived: NSDictionary = [
    "id": "Mail.fetched", "name": "inbox-sync-service", "flag": true, "count": 4096, "ratio": 0.125,
]
let archiver = try measure("roundtrip.nskeyedarchiver_ns", 5_000, rounds: 5) {
    let data = try NSKeyedArchiver.archivedData(withRootObject: archived, requiringSecureCoding: false)
    if let dictionary = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) as? NSDictionary {
        sink &+= dictionary.count
    }
}

if filter == nil { print("document.bytes: \(document.count) bytes") }
report("call.direct_dictionary_closure_ns", direct)
report("call.handler_ns", call)
report("call.handler_dictionary_ns", callDictionary)
report("call.handler_bound_only_ns", callBoundOnly)
report("decode.jsondecoder_ns", jsonDecoder)
report("decode_and_call.handler_ns", decodeAndCall)
report("roundtrip.nskeyedarchiver_ns", archiver)
if let jsonDecoder, let decodeAndCall {
    report("ratio.jsondecoder_over_decode_and_call", jsonDecoder / decodeAndCall, "x")
}
if let call, let direct {
    report("ratio.call_over_direct", call / direct, "x")
}
if let callDictionary, let direct {
    report("ratio.call_dictionary_over_direct", callDictionary / direct, "x")
}

try eventFigures(registry: registry, callDictionary: callDictionary)
try await SignalsBenchmark.run(filter: filter)
try await PromiseBenchmark.run(filter: filter)
try await RescueBenchmark.run(filter: filter)
try await QueueBenchmark.run(filter: filter)
try await BacklogBenchmark.run(filter: filter)
try await OrderBenchmark.run(filter: filter)
try await ExtensionBudget.run(filter: filter)
