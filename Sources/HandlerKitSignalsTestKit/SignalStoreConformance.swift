@_spi(SignalStoreDriver) import HandlerKitSignals

/// The conformance suite of the `SignalStore` protocol: the behaviour that the article "How a
/// delivery moves" of `HandlerKitSignals` states, checked through `SignalCenter`'s public API and the
/// store's own requirements. Every store of HandlerKit passes it; a third-party store runs it
/// from its own tests, with any test framework:
///
/// ```swift
/// import HandlerKitSignalsTestKit
/// import Testing
///
/// @Test(arguments: SignalStoreConformance.checks)
/// func conforms(_ check: SignalStoreConformance.Check) async throws {
///     try await check.run { try MyStore(url: testURL, schema: UUID().uuidString) }
/// }
/// ```
///
/// A check throws ``ConformanceFailure`` naming what it expected and what it found.
public enum SignalStoreConformance {
    /// One behaviour every store has.
    public struct Check: Sendable, CustomStringConvertible {
        /// What the check shows, as a sentence.
        public let name: String
        let body: @Sendable (ConformanceContext) async throws -> Void

        public var description: String { name }

        /// Runs the check on a store that `makeStore` opens: a new, empty store each time it is called
        /// (the check calls it once).
        public func run(on makeStore: @Sendable () async throws -> any SignalStore) async throws {
            let context = try ConformanceContext(check: name, store: try await makeStore())
            try await body(context)
        }
    }

    /// Every check of the suite.
    public static let checks: [Check] =
        ConformanceChecks.all + ConformanceChecks.postingChecks + ConformanceChecks.releaseChecks
        + ConformanceChecks.queueChecks + ConformanceChecks.debounceChecks
        + ConformanceChecks.suspensionChecks

    /// The checks of a store an operator can look inside (`InspectableSignalStore`), on top of
    /// ``checks``: its reads, and the actions of `SignalStoreInspector` made with the core's plans.
    /// Each fails on a store that is not an `InspectableSignalStore`.
    public static let inspectionChecks: [Check] = ConformanceChecks.inspectionChecks
}

/// What a check found wrong.
public struct ConformanceFailure: Error, CustomStringConvertible {
    /// The check's name.
    public var check: String
    /// What was expected and what was found.
    public var message: String
    /// Where in the suite (for its maintainers).
    public var line: Int

    public var description: String { "signal store conformance: \(check) (line \(line)): \(message)" }
}
