import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// A test's store that wraps another: it forwards every requirement to ``wrapped`` except those it
/// implements itself (at least `perform(_:)`, which the wrappers watch or change).
package protocol ForwardingSignalStore: SignalStore {
    /// The store every call goes to.
    var wrapped: any SignalStore { get }
}

extension ForwardingSignalStore {
    package var location: String { wrapped.location }
    package var livenessCheckInterval: Duration? { wrapped.livenessCheckInterval }

    package func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value {
        try await wrapped.read(read)
    }
    package func makeWakeListener() throws(SignalError) -> any SignalWakeListener { try wrapped.makeWakeListener() }

    package func beginRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        try await wrapped.beginRun(runID, component: component, applying: plan)
    }
    package func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        try await wrapped.endRun(runID, component: component, applying: plan)
    }
    package func suspendRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int] {
        try await wrapped.suspendRun(runID, component: component, applying: plan)
    }
    package func resumeRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> Bool {
        try await wrapped.resumeRun(runID, component: component, applying: plan)
    }
    package func takeOver(
        _ run: String, of component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int]? {
        try await wrapped.takeOver(run, of: component, applying: plan)
    }
}
