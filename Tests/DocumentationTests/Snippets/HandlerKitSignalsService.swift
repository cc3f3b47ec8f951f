// The Swift block of the overview of HandlerKitSignalsService (HandlerKitSignalsService.docc/
// HandlerKitSignalsService.md; see ArticleSnippetTests), compiled with the package trait
// ServiceLifecycle. Nothing here runs.
#if ServiceLifecycle
import Logging

// snippet: service
import HandlerKitSignals
import HandlerKitSignalsService
import ServiceLifecycle

// end snippet
enum HandlerKitSignalsServiceArticle {
    static func run(store: any SignalStore, logger: Logger) async throws {
        // snippet: service
        let center = try await SignalCenter.start(component: "worker", store: store)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: SignalCenterService(center, finishingWithin: .seconds(20)))],
                gracefulShutdownSignals: [.sigterm], logger: logger))
        try await group.run()
        // end snippet
    }
}
#endif
