// What this module offers when the package trait `PostgreSQL` is off: the store's names, unavailable,
// so that a client that forgot the trait is told at its first use how to turn it on, instead of
// finding an empty module.
#if !PostgreSQL
/// Needs the package trait `PostgreSQL`: `.package(url: …, from: …, traits: ["PostgreSQL"])`.
@available(*, unavailable, message: "PostgresSignalStore needs HandlerKit's package trait PostgreSQL: .package(url: ..., from: ..., traits: [\"PostgreSQL\"])")
public final class PostgresSignalStore {}

/// Needs the package trait `PostgreSQL`: `.package(url: …, from: …, traits: ["PostgreSQL"])`.
@available(*, unavailable, message: "PostgresSettings needs HandlerKit's package trait PostgreSQL: .package(url: ..., from: ..., traits: [\"PostgreSQL\"])")
public struct PostgresSettings {}
#endif
