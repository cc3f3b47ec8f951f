// The command line exists with its trait only (`swift test --traits SignalsCommandLine`, or
// `--enable-all-traits` as Scripts/test.sh runs).
#if SignalsCommandLine
import Foundation
import GRDB
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsInspection
import HandlerKitSignalsPostgres
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// Runs the built `handlerkit-signals` on SQLite stores with known content.
@Suite("Signals: the handlerkit-signals command line")
struct CommandLineTests {
    let folder = TemporaryFolder()
    var path: String { folder.path + "/signals.sqlite" }

    /// The store with known content (`makeOperatorsStore(at:note:)`), its pending payload's note plain text.
    func makeStore() async throws -> (dead: ConsumerID, receiving: ConsumerID) {
        try await makeOperatorsStore(at: path, note: "waiting")
    }

    struct Outcome {
        var status: Int32
        var output: String
        var errors: String
    }

    /// The built tool, found next to the test bundle.
    func executable() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appending(path: "handlerkit-signals", directoryHint: .notDirectory)
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) {
                return candidate
            }
            directory = directory.deletingLastPathComponent()
        }
        throw ToolNotFound()
    }

    /// Runs the tool with `arguments`, standard input not a terminal.
    func tool(_ arguments: String...) async throws -> Outcome {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let output = folder.path + "/out-\(UUID().uuidString)"
        let errors = output + ".err"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        await Probe.finish(process)
        return Outcome(
            status: process.terminationStatus,
            output: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    struct ToolNotFound: Error, CustomStringConvertible {
        var description: String { "handlerkit-signals not found next to the test bundle" }
    }

    /// The JSON a command wrote.
    func json(_ outcome: Outcome) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(outcome.output.utf8))
    }

    @Test func statusReadsWithoutWriting() async throws {
        _ = try await makeStore()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()

        let text = try await tool("status", path)
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.contains("dead letters    2"), "\(text.output)")
        #expect(text.output.contains("kept signals    1"))
        #expect(text.output.contains("completions     1 in the history"))
        #expect(text.output.contains("runs (0)"))
        #expect(text.output.contains("app: no run alive; its waiting deliveries run when a process of app starts"))
        let row = try #require(text.output.split(separator: "\n").first { $0.contains(" app ") })
        #expect(row.split(separator: " ").suffix(4) == ["1", "0", "0", "2"], "pending retrying claimed dead: \(row)")
        #expect(text.output.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(text.output)")

        let status = try #require(try json(try await tool("status", path, "--json")) as? [String: Any])
        #expect(status["deadDeliveries"] as? Int == 2)
        #expect(status["keptSignals"] as? Int == 1)
        #expect(status["componentsWithoutLiveRun"] as? [String] == ["app"])
        let counts = try #require(status["counts"] as? [[String: Any]])
        #expect(
            Set(counts.map { "\($0["component"] ?? "")/\($0["state"] ?? "")=\($0["count"] ?? "")" }) == [
                "app/pending=1", "app/dead=2",
            ])

        // Reading wrote nothing: the database file is as it was, and no file of the store was made
        // but SQLite's empty -wal and -shm.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == modified)
        let after = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { !$0.hasPrefix("out-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted()
        #expect(after == files.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
    }

    @Test func anOlderStoreIsReadAsItIsAndNotMigrated() async throws {
        _ = try await makeStore()
        try await DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    ALTER TABLE deliveries DROP COLUMN claimed_at; DROP INDEX deliveries_by_order_key;
                    ALTER TABLE deliveries DROP COLUMN order_key; PRAGMA user_version = 3
                    """)
        }
        let listed = try await tool("deliveries", path, "--json")
        #expect(listed.status == 0, "\(listed.errors)")
        #expect((try json(listed) as? [[String: Any]])?.count == 3)
        let status = try await tool("status", path)
        #expect(status.status == 0, "\(status.errors)")
        #expect(status.output.contains("blocked keys    0"), "\(status.output)")
        let version = try await DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version")
        }
        #expect(version == 3, "the tool migrated nothing")
    }

    @Test func showsOrderingKeysAndTheKeysTheirFirstDeliveryBlocks() async throws {
        let sending = try await makeBlockedKeyStore(at: path)
        let status = try await tool("status", path)
        #expect(status.output.contains("blocked keys    2 (see `blocked-keys`)"), "\(status.output)")
        #expect(
            (try json(try await tool("status", path, "--json")) as? [String: Any])?["blockedOrderingKeys"] as? Int == 2)

        let text = try await tool("blocked-keys", path)
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.contains("blocked ordering keys (2)"), "\(text.output)")
        #expect(text.output.contains("'conversation-1' 2 waiting · chat"), "\(text.output)")
        #expect(text.output.contains("release it: `requeue \(sending.rawValue)/1`"), "\(text.output)")
        #expect(text.output.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(text.output)")
        let blocked = try #require(try json(try await tool("blocked-keys", path, "--json")) as? [[String: Any]])
        #expect(
            blocked.map { "\($0["orderingKey"] ?? "") \($0["waiting"] ?? "")" } == [
                "conversation-1 2", "conversation-2 0",
            ])
        #expect((blocked.first?["head"] as? [String: Any])?["key"] as? String == "\(sending.rawValue)/1")

        let keyed = try await tool("deliveries", path, "--ordering-key", "conversation-1")
        #expect(keyed.output.contains("deliveries (3)"), "\(keyed.output)")
        let unwrapped = keyed.output.replacingOccurrences(of: "\n    ", with: " ")
        #expect(unwrapped.components(separatedBy: "ordering key 'conversation-1'").count == 4, "\(keyed.output)")
        let requeued = try await tool("requeue", path, "--ordering-key", "conversation-1", "--yes")
        #expect(requeued.status == 0, "\(requeued.errors)")
        #expect(requeued.output.contains("requeued 1 delivery"), "\(requeued.output)")
        let after = try #require(try json(try await tool("blocked-keys", path, "--json")) as? [[String: Any]])
        #expect(after.map { $0["orderingKey"] as? String } == ["conversation-2"])
    }

    @Test func listsDeliveriesConsumersAndCompletions() async throws {
        let (dead, receiving) = try await makeStore()
        let text = try await tool("deliveries", path, "--state", "dead")
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.contains("deliveries (2)"))
        #expect(text.output.contains("reason: handler 'Sink.fail' threw on attempt 1"), "\(text.output)")
        #expect(text.output.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(text.output)")

        let listed = try #require(
            try json(try await tool("deliveries", path, "--json", "--signal", "s")) as? [[String: Any]])
        #expect(listed.map { $0["key"] as? String } == ["\(receiving.rawValue)/2"])
        #expect(listed.first?["state"] as? String == "pending")
        let deadOnes = try #require(
            try json(try await tool("deliveries", path, "--json", "--state", "dead", "--handler", "Sink.fail"))
                as? [[String: Any]])
        #expect(deadOnes.compactMap { $0["key"] as? String } == ["\(dead.rawValue)/1", "\(dead.rawValue)/2"])
        let none = try #require(
            try json(try await tool("deliveries", path, "--json", "--older-than", "1d")) as? [[String: Any]])
        #expect(none.isEmpty)

        let shown = try await tool("show", path, "\(receiving.rawValue)/2")
        #expect(shown.status == 0, "\(shown.errors)")
        #expect(shown.output.contains("\"note\":\"waiting\""), "\(shown.output)")
        // Documents are wrapped at 80 columns (continuation lines indented by two spaces).
        let unwrapped = shown.output.replacingOccurrences(of: "\n  ", with: "")
        #expect(unwrapped.contains("\"large\":9223372036854775807"), "every digit kept: \(shown.output)")
        #expect(shown.output.contains("Sink.receive"))
        let detail = try #require(
            try json(try await tool("show", path, "\(receiving.rawValue)/2", "--json")) as? [String: Any])
        #expect((detail["payload"] as? [String: Any])?["item"] as? Int == 2)

        let consumers = try #require(try json(try await tool("consumers", path, "--json")) as? [[String: Any]])
        #expect(Set(consumers.compactMap { $0["consumerID"] as? String }) == [dead.rawValue, receiving.rawValue])
        let completions = try #require(
            try json(try await tool("completions", path, "--json", "--key", "\(receiving.rawValue)/1"))
                as? [[String: Any]])
        #expect(completions.count == 1 && completions.first?["attempt"] as? Int == 1)
    }

    @Test func actionsAskForConfirmationAndSayWhatChanged() async throws {
        let (dead, receiving) = try await makeStore()
        let refused = try await tool("requeue", path, "--all")
        #expect(refused.status != 0)
        #expect(refused.errors.contains("standard input is not a terminal; add --yes"), "\(refused.errors)")
        let inspector = SignalStoreInspector(store: try SQLiteSignalStore(inspecting: path))
        #expect(try await inspector.deliveries(matching: DeliveryFilter(states: [.dead])).count == 2, "nothing changed")

        let unsaid = try await tool("requeue", path, "--yes")
        #expect(unsaid.status != 0)
        #expect(unsaid.errors.contains("say which dead deliveries to requeue"), "\(unsaid.errors)")

        let one = try await tool("requeue", path, "\(dead.rawValue)/1", "--yes")
        #expect(one.status == 0, "\(one.errors)")
        #expect(one.output.contains("requeued 1 delivery: pending, due now"), "\(one.output)")
        let rest = try #require(try json(try await tool("requeue", path, "--all", "--yes", "--json")) as? [String: Any])
        #expect(rest["changed"] as? Int == 1)
        #expect(try await inspector.deliveries(matching: DeliveryFilter(states: [.dead])).isEmpty)
        #expect(try await inspector.deliveries(matching: DeliveryFilter(states: [.pending])).count == 3)

        let discarded = try await tool("discard", path, "--delivery", "\(receiving.rawValue)/2", "--yes")
        #expect(discarded.status == 0, "\(discarded.errors)")
        #expect(discarded.output.contains("discarded delivery \(receiving.rawValue)/2 (pending)"))
        let gone = try await tool("discard", path, "--delivery", "\(receiving.rawValue)/2", "--yes")
        #expect(gone.status != 0 && gone.errors.contains("no delivery"), "\(gone.errors)")

        let consumer = try await tool("discard", path, "--consumer", dead.rawValue, "--yes")
        #expect(consumer.status == 0, "\(consumer.errors)")
        #expect(
            consumer.output.contains("discarded consumer \(dead.rawValue), 2 pending and 0 dead"), "\(consumer.output)")

        let purged = try await tool("purge-completions", path, "--yes")
        #expect(purged.output.contains("removed 1 completion from the history"), "\(purged.output)")
        #expect(try await inspector.store.statistics().completions == 0)
    }

    @Test func badStoresAreTypedErrorsSayingWhatToDo() async throws {
        let missing = try await tool("status", folder.path + "/nothing.sqlite")
        #expect(missing.status != 0)
        #expect(missing.errors.contains("there is no file there"), "\(missing.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/nothing.sqlite"), "no store was made")
        let missingAction = try await tool("requeue", folder.path + "/nothing.sqlite", "--all", "--yes")
        #expect(missingAction.status != 0 && missingAction.errors.contains("there is no file there"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/nothing.sqlite"), "no store was made")

        let text = folder.path + "/notes.txt"
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: text))
        let notDatabase = try await tool("status", text)
        #expect(notDatabase.status != 0)
        #expect(
            notDatabase.errors.contains("not a signal store") || notDatabase.errors.contains("damaged"),
            "\(notDatabase.errors)")

        let other = folder.path + "/other.sqlite"
        try await DatabaseQueue(path: other).write { db in try db.execute(sql: "CREATE TABLE notes (text TEXT)") }
        let foreign = try await tool("status", other)
        #expect(foreign.status != 0)
        #expect(
            foreign.errors.contains("is not a signal store") && foreign.errors.contains("'notes'"), "\(foreign.errors)")

        _ = try await makeStore()
        try await DatabaseQueue(path: path).write { db in try db.execute(sql: "PRAGMA user_version = 99") }
        let newer = try await tool("deliveries", path)
        #expect(newer.status != 0)
        #expect(newer.errors.contains("schema version 99, newer than"), "\(newer.errors)")

        let unknown = try await tool("show", other, "x/1")
        #expect(unknown.status != 0)
    }

    #if PostgreSQL
    /// With `HANDLERKIT_POSTGRES_URL` (Scripts/with-postgres.sh): the same tool on a PostgreSQL schema.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["HANDLERKIT_POSTGRES_URL"]?.isEmpty == false))
    func aPostgreSQLStoreIsReadAndRepaired() async throws {
        let server = try #require(ProcessInfo.processInfo.environment["HANDLERKIT_POSTGRES_URL"])
        let url = server + (server.contains("?") ? "&" : "?") + "schema=cli\(UInt32.random(in: 0...UInt32.max))"
        let store = try PostgresSignalStore(url: url)
        let center = try await SignalCenter.start(
            component: "app", store: store, registry: try makeRegistry(Recorder()),
            options: .init(retry: RetryPolicy(maximumAttempts: 1), deliversAutomatically: false))
        let failing = try await center.register(try Handler(id: "Sink.fail", registry: center.registry), for: "bad")
        _ = try await center.post("bad")
        _ = try await center.deliverDue()

        let status = try #require(try json(try await tool("status", url, "--json")) as? [String: Any])
        #expect(status["deadDeliveries"] as? Int == 1)
        let runs = try #require(status["runs"] as? [[String: Any]])
        #expect(runs.first?["alive"] as? Bool == true && runs.first?["host"] is String, "\(runs)")
        let requeued = try await tool("requeue", url, "\(failing.rawValue)/1", "--yes")
        #expect(requeued.output.contains("requeued 1 delivery"), "\(requeued.errors)")
        #expect(try await center.deadDeliveries().isEmpty)
        try await center.stop()
        await store.close()
    }

    /// What the tool works out, not what it was given: the server's address from the URL (host and
    /// port, without the user, database or schema) and why it could not be reached (the connection was
    /// refused: nothing listens on port 1), as a failure, not a usage error.
    @Test func anUnreachableServerIsAnError() async throws {
        let outcome = try await tool("status", "postgres://nobody@127.0.0.1:1/signals?schema=none")
        #expect(outcome.status == 1, "\(outcome.errors)")
        #expect(outcome.errors.contains("server at 127.0.0.1:1"), "\(outcome.errors)")
        #expect(outcome.errors.lowercased().contains("refused"), "\(outcome.errors)")
        #expect(!outcome.errors.contains("URL"), "the URL is well-formed: \(outcome.errors)")
    }
    #endif
}
#endif
