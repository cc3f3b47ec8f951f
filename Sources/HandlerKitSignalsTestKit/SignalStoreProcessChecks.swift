#if os(macOS) || os(Linux)
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The crash and concurrency scenarios of a signal store, with real processes: the probe
/// (``SignalStoreProbe``, built as the store author's own small executable) registers, posts and
/// consumes in processes of its own, which are killed with SIGKILL at chosen points — inside a post's
/// transaction, after a claim, inside a handler, between a handler's return and its completion — and
/// run at the same time. Each check then inspects the store from the test's process: no delivery lost,
/// none completed twice, every interrupted handler run again, a handler that kills its process parked
/// dead after its attempts.
///
/// Like ``SignalStoreConformance`` they use no test framework: a check throws ``ConformanceFailure``
/// naming what it expected and what it found, with the probe's output, and keeps the check's folder
/// (the handlers' log, and the store's files if it keeps them there) for a look afterwards.
///
/// ```swift
/// import Foundation
/// import HandlerKitSignalsTestKit
/// import Testing
///
/// @Test(arguments: SignalStoreProcessChecks.checks)
/// func survivesCrashes(_ check: SignalStoreProcessChecks.Check) async throws {
///     let schema = "processes_\(UUID().uuidString.prefix(8))"
///     try await check.run(
///         probe: probeURL,  // the built my-store-probe executable
///         storeArguments: { _ in ["--url", testURL, "--schema", schema] },
///         openStore: { _ in try MyStore(url: testURL, schema: schema) })
/// }
/// ```
///
/// Available on macOS and Linux, where a test can start and kill processes. The checks take minutes
/// (the kill checks start hundreds of processes); run them one at a time.
public enum SignalStoreProcessChecks {
    /// One behaviour of a store shared by processes that crash and run at once.
    public struct Check: Sendable, CustomStringConvertible {
        /// What the check shows, as a sentence.
        public let name: String
        let body: @Sendable (ProcessCheckContext) async throws -> String

        public var description: String { name }

        /// Runs the check with the probe executable at `probe`, in a new folder: `storeArguments`
        /// gives the arguments that make the probe open the store (``SignalStoreProbe/Opening/arguments``),
        /// `openStore` opens the same store in this process, to inspect it. Both get the check's folder,
        /// where a store can keep its files; each check needs a new, empty store.
        ///
        /// - Returns: what the check counted, as `name=value` figures (kills, deliveries, lost,
        ///   completed twice, …), for the test's log; empty for a check that counts nothing.
        /// - Throws: ``ConformanceFailure`` naming the check, what it expected and what it found, and
        ///   the folder, which is kept (it is removed when the check passes).
        @discardableResult
        public func run(
            probe: URL,
            storeArguments: @Sendable (_ folder: URL) throws -> [String],
            openStore: @Sendable (_ folder: URL) async throws -> any SignalStore
        ) async throws -> String {
            let folder = FileManager.default.temporaryDirectory
                .appending(path: "signal-store-process-check-\(UUID().uuidString)", directoryHint: .notDirectory)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let path = folder.path(percentEncoded: false)
            do {
                let figures = try await runIn(
                    folder, probe: probe, storeArguments: storeArguments, openStore: openStore)
                try? FileManager.default.removeItem(at: folder)
                return figures
            } catch let failure as ConformanceFailure {
                var kept = failure
                kept.message += "\n(the check's folder is kept: \(path))"
                throw kept
            } catch {
                throw ConformanceFailure(
                    check: name, message: "unexpected error: \(error)\n(the check's folder is kept: \(path))", line: 0)
            }
        }

        private func runIn(
            _ folder: URL, probe: URL,
            storeArguments: @Sendable (_ folder: URL) throws -> [String],
            openStore: @Sendable (_ folder: URL) async throws -> any SignalStore
        ) async throws -> String {
            let context = ProcessCheckContext(
                check: name, probe: probe, folder: folder.path(percentEncoded: false),
                storeArguments: try storeArguments(folder), store: try await openStore(folder))
            return try await body(context)
        }
    }

    /// Every check: processes of two components exchange signals; a durable consumer is delivered in
    /// the next process of its component, run-tied ones are removed; consumers killed at each point
    /// (after a claim, inside a handler, before a completion) lose nothing and complete nothing twice,
    /// alone and three at once; killed posts leave nothing; a poison delivery is dead after its attempts;
    /// worker processes killed at random points keep the order of each ordering key.
    public static let checks: [Check] =
        ProcessChecks.delivery + ["afterClaim", "insideHandler", "beforeCompletion"].map(ProcessChecks.killedConsumers)
        + ProcessChecks.kills + ProcessChecks.order
}
#endif
