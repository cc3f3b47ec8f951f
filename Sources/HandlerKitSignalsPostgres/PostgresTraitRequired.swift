// What this module offers when the package trait `PostgreSQL` is off: the store's names and entry
// points, unavailable, so that a client that forgot the trait is told at its first use how to turn it
// on, instead of finding an empty module.
#if !PostgreSQL
@_spi(SignalStoreDriver) import HandlerKitSignals

/// Needs the package trait `PostgreSQL`: `.package(url: …, from: …, traits: ["PostgreSQL"])`.
@available(
    *, unavailable,
    message:
        "PostgresSignalStore needs HandlerKit's package trait PostgreSQL: .package(url: ..., from: ..., traits: [\"PostgreSQL\"])"
)
public final class PostgresSignalStore {
    /// Unavailable without the package trait `PostgreSQL`.
    @available(
        *, unavailable,
        message:
            "PostgresSignalStore needs HandlerKit's package trait PostgreSQL: .package(url: ..., from: ..., traits: [\"PostgreSQL\"])"
    )
    public init(url: String) throws(SignalError) {
        throw .storeUnavailable(path: url, reason: "HandlerKit was built without its package trait PostgreSQL")
    }

    /// Unavailable without the package trait `PostgreSQL`.
    @available(
        *, unavailable,
        message:
            "PostgresSignalStore needs HandlerKit's package trait PostgreSQL: .package(url: ..., from: ..., traits: [\"PostgreSQL\"])"
    )
    public static func fromEnvironment(schema: String? = nil) throws(SignalError) -> PostgresSignalStore {
        throw .storeUnavailable(
            path: "HANDLERKIT_POSTGRES_URL", reason: "HandlerKit was built without its package trait PostgreSQL")
    }
}

/// Needs the package trait `PostgreSQL`: `.package(url: …, from: …, traits: ["PostgreSQL"])`.
@available(
    *, unavailable,
    message:
        "PostgresSettings needs HandlerKit's package trait PostgreSQL: .package(url: ..., from: ..., traits: [\"PostgreSQL\"])"
)
public struct PostgresSettings {}
#endif
