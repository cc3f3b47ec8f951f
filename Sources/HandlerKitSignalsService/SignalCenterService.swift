// Compiled with the package trait `ServiceLifecycle` (SignalCenterServiceTraitRequired.swift otherwise).
#if ServiceLifecycle
import HandlerKitSignals
import Logging
import ServiceLifecycle

/// A started `SignalCenter` as a `Service` of a swift-service-lifecycle
/// `ServiceGroup`, for a daemon or a server.
///
/// ```swift
/// let center = try await SignalCenter.start(component: "worker", store: store, options: options)
/// let group = ServiceGroup(
///     configuration: ServiceGroupConfiguration(
///         services: [.init(service: SignalCenterService(center, finishingWithin: .seconds(20)))],
///         gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
///
/// ``run()`` delivers for as long as the group runs (the center's automatic delivery does the work)
/// and, on the group's graceful shutdown (a SIGTERM), stops the center with
/// `SignalCenter.stop(finishingWithin:)`: it stops claiming, lets the handlers
/// that run finish within the grace period, gives back the claims not started, and ends the run, so
/// that the component's next process has nothing to wait for. It returns once the run has ended.
/// When the service's task is cancelled instead (the group's cancellation, or the end of its
/// graceful shutdown timeout), the center is stopped without a grace period: the handlers that
/// run are interrupted (their deliveries run again in the next run, never completed twice).
public struct SignalCenterService: Service {
    /// The center the service runs and stops.
    public let center: SignalCenter
    /// How long a graceful shutdown lets the handlers that run finish.
    public var grace: Duration

    /// A service that runs `center` and, on a graceful shutdown, stops it letting its running
    /// handlers finish within `grace`.
    public init(_ center: SignalCenter, finishingWithin grace: Duration = .seconds(10)) {
        self.center = center
        self.grace = grace
    }

    /// Runs until the group's graceful shutdown (or the task's cancellation), then stops the center
    /// and returns once its run has ended.
    ///
    /// - Throws: the store's errors of the stop (`SignalError`); the run then ends when its process
    ///   does, and the component's next process takes it over.
    public func run() async throws {
        var grace = self.grace
        do {
            try await gracefulShutdown()
            center.log(.debug, "graceful shutdown: stopping the signal center")
        } catch {
            // Cancelled: stop now, without a grace period.
            grace = .zero
            center.log(.debug, "cancelled: stopping the signal center without a grace period")
        }
        // In a task of its own, which a cancellation of this one does not reach: the store calls
        // that end the run are what leaves nothing for a takeover.
        let center = center
        let stopping = Task { () async throws(SignalError) -> StopReport in
            try await center.stop(finishingWithin: grace)
        }
        _ = try await stopping.value
    }
}
#endif
