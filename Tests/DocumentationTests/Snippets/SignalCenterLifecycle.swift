// The Swift blocks of the article "The life of a signal center" (HandlerKitSignals.docc/
// SignalCenterLifecycle.md; see ArticleSnippetTests). Nothing here runs.
import HandlerKit

// snippet: start
import HandlerKitSignals
import HandlerKitSignalsSQLite

// end snippet
enum SignalCenterLifecycleArticle {
    static func start(sharedContainer: String) async throws {
        // snippet: start
        let store = try SQLiteSignalStore(path: sharedContainer + "/signals.sqlite")  // or a PostgresSignalStore
        let center = try await SignalCenter.start(component: "app", store: store)
        // end snippet
        _ = center
    }

    // snippet: register
    enum Upload {
        @handler static func finished(file: String, success: Bool, remotePath: String?, deliveryKey: String) {
            // …
        }
    }

    // end snippet
    static func register(center: SignalCenter) async throws {
        // snippet: register
        let signal = SignalID()
        let consumer = try await center.register(try Upload.finishedHandler(file: "report.pdf"), for: signal)
        // end snippet
        _ = consumer
    }

    // snippet: hand-over
    struct UploadJob: Codable {
        var file: String
        var signal: String
    }

    // end snippet
    static func handOver(signal: SignalID) {
        // snippet: hand-over
        // The app, when it hands the upload over (written to the shared container):
        let job = UploadJob(file: "report.pdf", signal: signal.rawValue)

        // end snippet
        _ = job
    }

    static func receive(job: UploadJob) {
        // snippet: hand-over
        // The share extension, when it has read the job:
        let signal = SignalID(job.signal)
        // end snippet
        _ = signal
    }

    static func post(signal: SignalID, store: SQLiteSignalStore) async throws {
        // snippet: post
        let share = try await SignalCenter.start(component: "share-extension", store: store)
        let result = try await share.post(signal, payload: ["success": true, "remotePath": "/Docs/report.pdf"])
        if result.hadNoConsumer {
            // Nobody was waiting for this signal: the post stored nothing.
        }
        // end snippet
    }

    static func delayedPost(app: SignalCenter, noteID: String) async throws {
        // snippet: delayed-post
        // Remind the user in an hour, whichever process of the app then runs.
        try await app.post("reminder.due", payload: ["noteID": noteID], notBefore: .now.addingTimeInterval(3_600))
        // end snippet
    }

    static func bulkPost(app: SignalCenter, photoIDs: [String]) async throws {
        // snippet: bulk-post
        let results = try await app.post(photoIDs.map { SignalPost("thumbnail.make", payload: ["photoID": $0]) })
        // end snippet
        _ = results
    }

    static func idempotentPost(app: SignalCenter, orderID: String, requestID: String) async throws {
        // snippet: idempotent-post
        let result = try await app.post("order.placed", payload: ["orderID": orderID], idempotencyKey: requestID)
        // end snippet
        _ = result
    }

    static func deliverByHand(store: SQLiteSignalStore) async throws {
        // snippet: deliver-by-hand
        var options = SignalCenter.Options()
        options.deliversAutomatically = false
        let center = try await SignalCenter.start(component: "app", store: store, options: options)

        let completed = try await center.deliverDue()      // runs every delivery that is due now
        let open = try await center.openDeliveries()       // not completed yet: pending, waiting for a retry, running
        if open == 0 {
            // Everything posted to this component's consumers so far has been handled.
        }
        // end snippet
        _ = completed
    }

    static func suspend(center: SignalCenter) async throws {
        // snippet: suspend
        // sceneDidEnterBackground(_:), inside a background task that ends when this returns;
        // a Notification Service Extension: before calling the content handler.
        let suspension = try await center.suspend(finishingWithin: .seconds(5))

        // sceneWillEnterForeground(_:), or when an extension is handed new work.
        let resumed = try await center.resume()
        if resumed.wasTakenOver {
            // Another process of the component took the run over meanwhile: this center is a new run now.
        }
        // end snippet
        _ = suspension
    }

    static func stop(center: SignalCenter) async throws {
        // snippet: stop
        try await center.stop()
        // end snippet
    }
}
