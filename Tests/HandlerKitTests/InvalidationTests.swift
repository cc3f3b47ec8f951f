import Foundation
import HandlerKit
import Testing

@Suite("Invalidation and concurrent use")
struct InvalidationTests {
    let recorder = Recorder()
    let registry: HandlerRegistry

    init() throws { registry = try makeRegistry(recorder) }

    @Test func invalidationRunsTheTargetOnceWithTheSharedBoundValues() throws {
        let handler = try Handler(
            id: "Mail.fetched", bound: ["rid": "r-7", "success": true], invalidation: "Mail.cancelled",
            registry: registry)
        try handler.invalidateSynchronously(["done": true])
        #expect(recorder.all == ["cancelled true r-7"])
        #expect(handler.isInvalidated)
        #expect(throws: HandlerError.invalidated(handler: "Mail.fetched")) {
            try handler.callSynchronously(["account": Account(jid: "x")])
        }
        #expect(throws: HandlerError.invalidated(handler: "Mail.fetched")) { try handler.bind(["rid": "again"]) }
        #expect(throws: HandlerError.invalidated(handler: "Mail.fetched")) {
            try handler.invalidateSynchronously(["done": true])
        }
        #expect(recorder.all == ["cancelled true r-7"])
    }

    @Test func invalidatingWithoutATargetEndsTheHandler() throws {
        let handler = try Handler(id: "Counter.add", bound: ["amount": 1], registry: registry)
        try handler.invalidateSynchronously()
        #expect(throws: HandlerError.invalidated(handler: "Counter.add")) { try handler.callSynchronously() }
        #expect(recorder.all.isEmpty)
    }

    @Test func aMissingArgumentOfTheTargetLeavesTheHandlerValid() throws {
        let handler = try Handler(
            id: "Counter.add", bound: ["amount": 1], invalidation: "Mail.cancelled", registry: registry)
        #expect(throws: HandlerError.missingArgument(handler: "Mail.cancelled", argument: "done", expectedType: "Bool"))
        {
            try handler.invalidateSynchronously()
        }
        #expect(!handler.isInvalidated)
        try handler.invalidateSynchronously(["done": false])
        #expect(recorder.all == ["cancelled false nil"])
    }

    @Test func invalidationStateIsNotPersistedButTheTargetIs() throws {
        let handler = try Handler(
            id: "Counter.add", bound: ["amount": 1], invalidation: "Uploads.aborted", registry: registry)
        let rebuilt = try Handler(json: handler.jsonData(), registry: registry)
        #expect(rebuilt.invalidationID == "Uploads.aborted")
        #expect(throws: HandlerError.requiresAsync(handler: "Uploads.aborted")) {
            try rebuilt.invalidateSynchronously()
        }
        #expect(!rebuilt.isInvalidated)
    }

    @Test func asyncInvalidationTarget() async throws {
        let handler = try Handler(
            id: "Counter.add", bound: ["amount": 1], invalidation: "Uploads.aborted", registry: registry)
        try await handler.invalidate(["reason": "user"])
        #expect(recorder.all == ["aborted user"])
    }

    @Test func tenThousandRacingCallsAndInvalidationsInvalidateExactlyOnce() async throws {
        let handler = try Handler(
            id: "Counter.add", bound: ["amount": 1], invalidation: "Mail.cancelled", registry: registry)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for index in 0..<10_000 {
                group.addTask {
                    do {
                        if index % 2 == 0 {
                            try handler.callSynchronously()
                            return "called"
                        }
                        try handler.invalidateSynchronously(["done": true])
                        return "invalidated"
                    } catch let error as HandlerError {
                        return error == .invalidated(handler: "Counter.add") ? "refused" : "other \(error)"
                    } catch {
                        return "other \(error)"
                    }
                }
            }
            var outcomes: [String: Int] = [:]
            for await outcome in group { outcomes[outcome, default: 0] += 1 }
            return outcomes
        }
        #expect(outcomes["invalidated"] == 1)
        #expect(recorder.count(prefix: "cancelled") == 1)
        #expect(outcomes.keys.allSatisfy { ["called", "invalidated", "refused"].contains($0) }, "\(outcomes)")
        #expect((outcomes["called"] ?? 0) + (outcomes["invalidated"] ?? 0) + (outcomes["refused"] ?? 0) == 10_000)
        #expect(recorder.count(prefix: "add") == outcomes["called"])
    }

    @Test func concurrentBindsAndCallsAreSafe() async throws {
        let handler = try Handler(id: "Counter.add", bound: ["amount": 0], registry: registry)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<1_000 {
                group.addTask {
                    if index % 2 == 0 { try handler.bind(["amount": index]) } else { try handler.callSynchronously() }
                }
            }
            try await group.waitForAll()
        }
        #expect(recorder.count(prefix: "add") == 500)
        #expect(handler.boundValues["amount"] != nil)
    }
}
