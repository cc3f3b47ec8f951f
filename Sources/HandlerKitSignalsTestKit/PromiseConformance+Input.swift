import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The checks of what a promise is settled with: values of an older or newer shape, bad input, and a
/// settlement posted in the same transaction as a signal.
extension PromiseChecks {
    static func evolution(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let oldRegistry = try makePromiseRegistry(log, old: true)
        let newRegistry = try makePromiseRegistry(log)
        let old = try await c.center("app", registry: oldRegistry)
        let renamed = try await old.makePromise(
            of: Int.self, id: "renamed", fallback: try Handler(id: "Promised.old", registry: oldRegistry))
        let gone = try await old.makePromise(
            of: Int.self, id: "gone", fallback: try Handler(id: "Promised.gone", registry: oldRegistry))
        try await old.stop()
        let new = try await c.center("app", registry: newRegistry)
        try await new.fulfil(renamed, with: 1, settlementKey: "k")
        try await new.fulfil(gone, with: 2, settlementKey: "k")
        try c.expectEqual(try await new.deliverDue(), 1, "deliveries completed")
        try c.expectEqual(
            log.withLock { $0 },
            [Settled(handler: "Promised.renamed", promiseID: "renamed", outcome: "fulfilled", value: 1)],
            "the renamed fallback's run")
        // A value type renamed since the promise was made: awaited and settled under its new name.
        let boxed = try await new.makePromise(of: Box.self, id: "boxed")
        try await new.fulfil(DurablePromise<Parcel>(id: boxed.id), with: Parcel(name: "p", size: 3), settlementKey: "k")
        try c.expectEqual(
            try await new.value(of: DurablePromise<Parcel>(id: boxed.id)), Parcel(name: "p", size: 3),
            "the value read under the type's new name")
        let other = try await error(c, "awaiting as a type that is not a rename") {
            _ = try await new.value(of: DurablePromise<Int>(id: boxed.id))
        }
        try c.expect({ if case .wrongValueType = other { true } else { false } }(), "found \(other)")
        let dead = try await new.deadDeliveries()
        try c.expect(
            dead.count == 1 && dead[0].handlerID == "Promised.gone" && dead[0].reason.contains("Promised.gone"),
            "the removed fallback's settlement is dead, naming it, found \(dead)")
        try await new.stop()
    }

    static func badInput(_ c: ConformanceContext) async throws {
        let app = try await c.center("app")
        for (id, needle) in [("", "empty"), (" x", "white space"), (String(repeating: "a", count: 300), "300 bytes")] {
            let error = try await error(c, "making a promise with id '\(id.prefix(8))'") {
                _ = try await app.makePromise(of: Int.self, id: id)
            }
            try c.expect(
                { if case .invalidPromise = error { true } else { false } }() && "\(error)".contains(needle),
                "an invalid id is named (\(needle)), found \(error)")
        }
        _ = try await app.makePromise(of: Int.self, id: "twice")
        let twice = try await error(c, "making a promise twice") {
            _ = try await app.makePromise(of: Int.self, id: "twice")
        }
        try c.expectEqual(twice, .promiseExists(id: "twice"), "a second promise with the same id")
        let invalidated = try c.handler("Sink.fail")
        try await invalidated.invalidate()
        let badFallback = try await error(c, "an invalidated fallback") {
            _ = try await app.makePromise(of: Int.self, id: "bad", fallback: invalidated)
        }
        try c.expect({ if case .invalidPromise = badFallback { true } else { false } }(), "found \(badFallback)")
        // Settlements a fallback delivery could not read: refused, and the promise stays pending.
        let deep = (0..<(DecodingLimits.default.maximumDepth + 10)).reduce(Nest(inner: nil)) { inner, _ in
            Nest(inner: inner)
        }
        let nested = try await app.makePromise(of: Nest.self, id: "deep")
        let tooDeep = try await error(c, "fulfilling with a value nested too deep") {
            try await app.fulfil(nested, with: deep, settlementKey: "k")
        }
        try c.expect(
            { if case .invalidSettlement(_, .payloadTooDeep) = tooDeep { true } else { false } }()
                && "\(tooDeep)".contains("value.inner.inner"),
            "a value nested too deep is refused naming where, found \(tooDeep)")
        let large = try await app.makePromise(of: String.self, id: "large")
        let tooLarge = try await error(c, "fulfilling with a value too large") {
            try await app.fulfil(
                large, with: String(repeating: "x", count: DecodingLimits.default.maximumDocumentSize),
                settlementKey: "k")
        }
        try c.expect(
            { if case .invalidSettlement(_, .payloadTooLarge) = tooLarge { true } else { false } }(),
            "a value too large is refused, found \(tooLarge)")
        let hugeRejection = try await error(c, "rejecting with details too large") {
            try await app.reject(
                large,
                with: PromiseRejection(
                    code: "big", message: "m",
                    details: ["blob": String(repeating: "y", count: DecodingLimits.default.maximumDocumentSize)]),
                settlementKey: "k")
        }
        try c.expect(
            { if case .invalidSettlement(_, .payloadTooLarge) = hugeRejection { true } else { false } }(),
            "a rejection too large is refused, found \(hugeRejection)")
        for refused in ["deep", "large"] {
            try c.expectEqual(
                try await app.promises(settled: true).map(\.id).contains(refused), false,
                "promise '\(refused)' settled by a refused settlement")
        }
        try await app.cancel(nested)
        try await app.cancel(large)
        try c.expectEqual(try await app.promises().map(\.id).sorted(), ["deep", "large", "twice"], "promises stored")
        try c.expectEqual(try await c.store.statistics().consumers, 0, "consumers stored")
        try await app.stop()
        let stopped = try await error(c, "making a promise on a stopped center") {
            _ = try await app.makePromise(of: Int.self)
        }
        try c.expect({ if case .store(.centerStopped) = stopped { true } else { false } }(), "found \(stopped)")
    }

    static func settlementWithItsPost(_ c: ConformanceContext) async throws {
        let store = c.store
        let registry = try makePromiseRegistry(Locked([]))
        let app = try await c.center("app", registry: registry)
        let promise = try await app.makePromise(
            of: Int.self, id: "atomic", fallback: try Handler(id: "Promised.fallback", registry: registry))
        let consumer = try c.require(try await app.record(of: promise)?.fallbackConsumer, "a fallback consumer")
        let signal = try c.require(
            try await store.consumers(of: "app").first { $0.id == consumer }?.signalID, "the fallback's signal")
        let settlement = PromiseSettlementRecord(
            key: "k", outcome: .fulfilled, body: Array("7".utf8), settledAt: Date())
        let post = PromiseSettlementPost(
            signalID: signal, payload: Array(#"{"promiseID":"atomic","outcome":"fulfilled","value":7}"#.utf8))
        let seen = Locked<[PromiseRecord]>([])
        // Another value type: not settled; the post is asked for the promise as it is.
        let untouched = try await store.settlePromise(
            "atomic", with: settlement, ifValueTypeIn: ["Other.Type"],
            thenPosting: { record throws(SignalError) in
                seen.withLock { $0.append(record) }
                return nil
            })
        try c.expectEqual(untouched?.isSettled, false, "a promise settled as another value type")
        try c.expectEqual(seen.withLock { $0.map(\.isSettled) }, [false], "the records the post was asked for")
        // A post that fails rolls the settlement back.
        let refused = try await c.error("a settlement whose post fails") {
            _ = try await store.settlePromise(
                "atomic", with: settlement, ifValueTypeIn: nil,
                thenPosting: { record throws(SignalError) in
                    throw .malformedRecord(table: "promises", key: record.id, column: "body", reason: "refused")
                })
        }
        try c.expect("\(refused)".contains("refused"), "the post's error is thrown, found \(refused)")
        try c.expectEqual(try await store.promise("atomic")?.isSettled, false, "settled although its post failed")
        try c.expectEqual(try await store.statistics().pendingDeliveries, 0, "deliveries after a failed post")
        // Settled and posted together; an unknown promise asks for no post.
        let settled = try await store.settlePromise(
            "atomic", with: settlement, ifValueTypeIn: [String(reflecting: Int.self)],
            thenPosting: { record throws(SignalError) in record.isSettled ? post : nil })
        try c.expectEqual(settled?.settlement?.key, "k", "the settlement stored")
        try c.expectEqual(try await store.statistics().pendingDeliveries, 1, "the settlement's post")
        let unknown = try await store.settlePromise(
            "nope", with: settlement, ifValueTypeIn: nil,
            thenPosting: { _ throws(SignalError) in
                throw .malformedRecord(table: "promises", key: "nope", column: "-", reason: "asked for no promise")
            })
        try c.expectEqual(unknown, nil, "settling an unknown promise")
        try await app.stop()
    }
}
