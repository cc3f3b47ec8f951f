import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Promise commands of the probe (the promise kill test runs them as real processes):
//
//   promise-make --db PATH --component C --log LOG --promises N
//       makes promises p0…p(N-1) of Int with the fallback handler below, and exits
//   promise-settle --db PATH --component C --promises N [--from I] [--pause-ms M]
//       fulfils p(I)…p(N-1), each p(i) with i under settlement key k(i), pausing M ms between them; prints `settled N`
//   promise-wait --db PATH --component C --log LOG --promises N
//       starts a run (delivering by itself), prints `awaiting <count>`, and awaits those of p0…p(N-1) still
//       pending, in order, logging `waited p(i) <value> <pid>` for each value it receives; prints `waited <count>`
//   promise-drain --db PATH --component C
//       starts a run and delivers until nothing is open; prints `idle <completed>`
//   promise-check --db PATH --log LOG --promises N --kills K
//       counts how each settlement was consumed and prints the `promise.kill_test` line
//   promise-bind --db PATH --component C
//       binds a promise to a @handler, stores the handler as JSON, rebuilds and calls it (it fulfils
//       the promise), then awaits the promise; prints `bound <value>`
enum PromiseProbe {
    /// A promise's fallback: `fallback-start <promise> <value> <pid>`, then `fallback-end …`.
    @handler
    static func fallback(log: String, promiseID: String, outcome: String, value: Int?) {
        ProbeLog.append(log, "fallback-start \(promiseID) \(value ?? -1) \(getpid())")
        ProbeLog.append(log, "fallback-end \(promiseID) \(value ?? -1) \(getpid()) \(outcome)")
    }

    /// Fulfils `promise` with `value` (a promise bound to a handler as an argument).
    @handler
    static func fulfil(promise: DurablePromise<Int>, value: Int) async throws {
        guard let center = PromiseProbe.center.withLock({ $0 }) else { return }
        try await center.fulfil(promise, with: value, settlementKey: "bound")
    }

    static let center = Locked<SignalCenter?>(nil)

    /// Runs a promise command; `false` for another command.
    static func run(_ arguments: ProbeArguments, store: any SignalStore) async throws -> Bool {
        let component = try arguments.string("component", default: "app")
        func id(_ index: Int) -> DurablePromise<Int> { DurablePromise(id: "p\(index)") }
        switch arguments.command {
        case "promise-make":
            let center = try await SignalCenter.start(
                component: component, store: store, options: .init(deliversAutomatically: false))
            let log = try arguments.string("log")
            for index in 0..<(try arguments.int("promises")) {
                _ = try await center.makePromise(
                    of: Int.self, id: "p\(index)", fallback: try PromiseProbe.fallbackHandler(log: log))
            }
            try await center.stop()
        case "promise-settle":
            let center = try await SignalCenter.start(
                component: component, store: store, options: .init(deliversAutomatically: false))
            let pause = try arguments.int("pause-ms", default: 0)
            let count = try arguments.int("promises")
            say("settling")
            for index in (try arguments.int("from", default: 0))..<count {
                try await center.fulfil(id(index), with: index, settlementKey: "k\(index)")
                if pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
            }
            say("settled \(count)")
            try await center.stop()
        case "promise-wait":
            let center = try await SignalCenter.start(component: component, store: store)
            let log = try arguments.string("log")
            var received = 0
            // Awaits the promises still pending as it starts (settled ones go to the fallback).
            let pending = Set(try await center.promises(settled: false).map(\.id))
            say("awaiting \(pending.count)")
            for index in 0..<(try arguments.int("promises")) where pending.contains("p\(index)") {
                do {
                    let value = try await center.value(of: id(index))
                    ProbeLog.append(log, "waited p\(index) \(value) \(getpid())")
                    received += 1
                } catch {
                    // The fallback consumed it while no process of this component awaited it.
                    guard case .consumedElsewhere = error else { throw error }
                }
            }
            say("waited \(received)")
            try await center.stop()
        case "promise-drain":
            let center = try await SignalCenter.start(
                component: component, store: store, options: .init(deliversAutomatically: false))
            say("idle \(try await center.deliverUntilNothingIsOpen())")
            try await center.stop()
        case "promise-check":
            try await check(arguments, store: store)
        case "promise-bind":
            let center = try await SignalCenter.start(component: component, store: store)
            PromiseProbe.center.withLock { $0 = center }
            let promise = try await center.makePromise(of: Int.self)
            let stored = try PromiseProbe.fulfilHandler(promise: promise).jsonData()
            let rebuilt = try Handler(json: stored)
            try await rebuilt.call(["value": 42])
            say("bound \(try await center.value(of: promise))")
            try await center.stop()
        default:
            return false
        }
        return true
    }

    /// Counts, for each promise, the waiters that received its value, the fallback's runs and the
    /// store's completions of its settlement delivery.
    private static func check(_ arguments: ProbeArguments, store: any SignalStore) async throws {
        let count = try arguments.int("promises")
        let lines = ProbeLog.lines(try arguments.string("log")).map { $0.split(separator: " ").map(String.init) }
        var waited: [String: Int] = [:]
        var fallbackEnds: [String: Int] = [:]
        for fields in lines where fields.count >= 2 {
            if fields[0] == "waited" { waited[fields[1], default: 0] += 1 }
            if fields[0] == "fallback-end" { fallbackEnds[fields[1], default: 0] += 1 }
        }
        var byWaiter = 0
        var byFallback = 0
        var twice: [String] = []
        var never: [String] = []
        var unsettled = 0
        var fallbackReruns = 0
        for index in 0..<count {
            let id = "p\(index)"
            guard let record = try await store.promise(id), let consumer = record.fallbackConsumer else {
                throw ProbeError("promise \(id) is missing")
            }
            if !record.isSettled { unsettled += 1 }
            let completions = try await store.completions(of: DeliveryKey("\(consumer.rawValue)/1")).count
            let byItsFallback = fallbackEnds[id, default: 0] > 0
            fallbackReruns += max(0, fallbackEnds[id, default: 0] - 1)
            if completions == 0 { never.append(id) }
            if completions > 1 || waited[id, default: 0] > 1 || (byItsFallback && waited[id, default: 0] > 0) {
                twice.append(id)
            }
            if completions >= 1 { if byItsFallback { byFallback += 1 } else { byWaiter += 1 } }
        }
        let statistics = try await store.statistics()
        say(
            "promise.kill_test store=\(try arguments.string("store-name", default: "sqlite")) settlements=\(count) kills=\(try arguments.int("kills", default: 0)) by_waiter=\(byWaiter) by_fallback=\(byFallback) twice=\(twice.count) never=\(never.count) unsettled=\(unsettled) fallback_reruns=\(fallbackReruns) dead=\(statistics.deadDeliveries)"
        )
        if !twice.isEmpty { say("twice \(twice.joined(separator: " "))") }
        if !never.isEmpty { say("never \(never.joined(separator: " "))") }
    }
}
