import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalsTestSupport
import TestWaiting
import Testing

/// An in-memory store that logs its calls in order (each program's purpose, `read` for each read)
/// and holds its reads of a run's status while told to.
private final class LoggingStore: ForwardingSignalStore {
    private struct Held {
        var holding = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    let wrapped: any SignalStore = InMemorySignalStore()
    let log = Locked<[String]>([])
    private let held = Locked(Held())

    /// Holds every read of a run's status from now on, until `releaseReads()`.
    func holdReads() { held.withLock { $0.holding = true } }

    func releaseReads() {
        let waiting = held.withLock { held in
            held.holding = false
            defer { held.waiting = [] }
            return held.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func perform<Result: Sendable>(_ program: StoreProgram<Result>) async throws(SignalError) -> Result {
        log.withLock { $0.append(program.purpose) }
        return try await wrapped.perform(program)
    }

    func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value {
        // Logged and decided at once: a read logged before `holdReads()` is not held.
        let holds = held.withLock { held in
            log.withLock { $0.append("read") }
            return held.holding && read.sql.purpose.hasPrefix("reading the status of run")
        }
        if holds {
            await withCheckedContinuation { continuation in
                let waits = held.withLock { held in
                    if held.holding { held.waiting.append(continuation) }
                    return held.holding
                }
                if !waits { continuation.resume() }
            }
        }
        return try await wrapped.read(read)
    }
}

@Suite("Signals: waking a work queue's idle workers")
struct QueueWakeUpTests {
    /// A post to an idle queue starts its handler after one claim: the woken center claims from the
    /// queue first, rather than reading the run's status and claiming again in a second pass. The
    /// store holds every read of the run's status from the post on: the handler still starts.
    @Test func aPostToAnIdleQueueStartsItsHandlerWithoutReadingTheRunsStatus() async throws {
        let store = LoggingStore()
        let registry = try queueWorkRegistry { _ in store.log.withLock { $0.append("handler") } }
        let center = try await SignalCenter.start(
            component: "thumbs", store: store, registry: registry, options: .init(queueConcurrency: 2))
        try await center.register(
            try Handler(id: "Queue.work", registry: registry), for: "thumbs.make", lifetime: .queue,
            delivery: .everyRevision)
        // The delivery task's pass ends with a read of the run's status; then it sleeps.
        try await TestWait.until(
            "the delivery task looked at the run's status", seen: { "\(store.log.withLock { $0 })" }
        ) {
            store.log.withLock { $0.contains("read") }
        }
        let mark = store.log.withLock { $0.count }
        store.holdReads()
        defer { store.releaseReads() }
        _ = try await center.post("thumbs.make", payload: ["item": 1])
        try await TestWait.until("the handler ran", seen: { "\(store.log.withLock { $0 })" }) {
            store.log.withLock { $0.contains("handler") }
        }
        let calls = store.log.withLock { log in Array(log[mark...].prefix { $0 != "handler" }) }
        #expect(calls.first?.hasPrefix("posting") == true, "\(calls)")
        #expect(calls.dropFirst().first?.hasPrefix("claiming deliveries") == true, "\(calls)")
        // The pass's own status read is held: let it go before stopping, which waits for the pass.
        store.releaseReads()
        try await center.stop()
    }
}
