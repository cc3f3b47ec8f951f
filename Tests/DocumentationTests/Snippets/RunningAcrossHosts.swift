// The Swift block of the article "Running signals across hosts" (HandlerKitSignalsPostgres.docc/
// RunningAcrossHosts.md; see ArticleSnippetTests), compiled with the package trait PostgreSQL. Nothing
// here runs.
#if PostgreSQL
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsPostgres
import Logging
import PostgresNIO

enum RunningAcrossHostsArticle {
    /// The daemon's handler of a finished job.
    enum Daemon {
        @handler static func finished(jobName: String, success: Bool, count: Int) {}
    }

    static func twoHosts() async throws {
        // snippet: two-hosts
        // Host A: starts an action and registers a durable consumer for its result.
        let center = try await SignalCenter.start(component: "daemon", store: try PostgresSignalStore.fromEnvironment())
        let job = SignalID()
        _ = try await center.register(try Daemon.finishedHandler(jobName: "thumbs"), for: job)
        // … hands `job` to the worker …

        // Host B: does the work and posts the result.
        let worker = try await SignalCenter.start(component: "worker", store: try PostgresSignalStore.fromEnvironment())
        try await worker.post(job, payload: ["success": true, "count": 12])
        // end snippet
    }

    static func postInTransaction(
        client: PostgresClient, store: PostgresSignalStore, photoID: String, owner: String, logger: Logger
    ) async throws {
        // snippet: post-in-transaction
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("INSERT INTO photos (id, owner) VALUES (\(photoID), \(owner))", logger: logger)
            try await store.post("thumbnails.requested", payload: ["photoID": photoID], in: connection)
        }
        // end snippet
    }
}
#endif
