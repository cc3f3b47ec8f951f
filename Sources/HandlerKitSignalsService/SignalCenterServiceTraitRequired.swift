// What this module offers when the package trait `ServiceLifecycle` is off: the service's name and
// entry point, unavailable, so that a client that forgot the trait is told at its first use how to
// turn it on, instead of finding an empty module.
#if !ServiceLifecycle
import HandlerKitSignals

/// Needs the package trait `ServiceLifecycle`: `.package(url: …, from: …, traits: ["ServiceLifecycle"])`.
@available(
    *, unavailable,
    message:
        "SignalCenterService needs HandlerKit's package trait ServiceLifecycle: .package(url: ..., from: ..., traits: [\"ServiceLifecycle\"])"
)
public struct SignalCenterService {
    /// Unavailable without the package trait `ServiceLifecycle`.
    @available(
        *, unavailable,
        message:
            "SignalCenterService needs HandlerKit's package trait ServiceLifecycle: .package(url: ..., from: ..., traits: [\"ServiceLifecycle\"])"
    )
    public init(_ center: SignalCenter, finishingWithin grace: Duration = .seconds(10)) {}
}
#endif
