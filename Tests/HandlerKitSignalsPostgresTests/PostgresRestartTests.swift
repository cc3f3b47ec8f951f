// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL && canImport(Glibc)
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsPostgres
import HandlerKitSignalsTestKit
import Logging
import SignalsTestSupport
import Testing

/// A process restarted after a clean stop (a deploy): what the store logs when the next process
/// adopts the durable consumers the stopped run left.
@Suite(
    "Signals on PostgreSQL: a restart after a clean stop",
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresRestartTests {
    let folder = TemporaryFolder()

    @Test func theStoreLogsNoTakeoverOfADeadRunAfterACleanStop() async throws {
        let messages = RecordedMessages()
        var options = PostgresSignalStore.Options()
        options.logger = Logger(label: "test") { _ in RecordingLogHandler(messages: messages) }
        let store = try PostgresTestServer.store(folder: folder.path, options: options)
        let registry = try makeRegistry(Recorder())
        let first = try await manualCenter("app", store: store, registry: registry)
        try await first.register(try Handler(id: "Sink.receive", registry: registry), for: "later")
        try await first.stop()
        let next = try await manualCenter("app", store: store, registry: registry)
        #expect(next.takeover.deadRuns.isEmpty && next.takeover.endedRuns == [first.runID], "\(next.takeover)")
        let all = messages.all
        #expect(!all.contains { $0.contains("took over a dead run") }, "\(all)")
        let adopted = all.filter { $0.contains("adopted the consumers of a run that ended cleanly") }
        #expect(adopted.count == 1 && adopted[0].hasPrefix("debug: "), "\(all)")
        #expect(adopted.first?.contains(first.runID) == true, "\(adopted)")
        #expect(adopted.first?.contains("handlerkit.host") == false, "no host to name: \(adopted)")
        try await next.stop()
        await store.close()
    }
}
#endif
