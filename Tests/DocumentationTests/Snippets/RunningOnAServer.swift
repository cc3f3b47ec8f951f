// The Swift block of the article "Running on a server" (HandlerKitSignals.docc/RunningOnAServer.md;
// see ArticleSnippetTests), compiled with the package traits PostgreSQL and ServiceLifecycle. Nothing
// here runs.
#if PostgreSQL && ServiceLifecycle
// snippet: service
import HandlerKitSignals
import HandlerKitSignalsPostgres
import HandlerKitSignalsService
import Logging
import ServiceLifecycle

// end snippet
enum RunningOnAServerArticle {
    static func run(databaseURL: String) async throws {
        // snippet: service
        let logger = Logger(label: "worker")
        let store = try PostgresSignalStore(url: databaseURL, options: .init(logger: logger))
        let center = try await SignalCenter.start(component: "worker", store: store, options: .init(logger: logger))
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: SignalCenterService(center, finishingWithin: .seconds(20)))],
                gracefulShutdownSignals: [.sigterm], logger: logger))
        try await group.run()
        // end snippet
    }
}
#endif
