import Foundation
import HandlerKit
import HandlerKitSignalsPostgres

/// A type of this module: the generator knows it from the scan and never looks for it in C headers.
public struct Invoice: Codable, Sendable {
    public var number: Int
}

/// Handlers a server registers, with the Foundation types such code takes: `Data` and the others
/// occur in BoringSSL's headers, which the plugin must leave alone.
public enum ServerHandlers {
    @handler public static func store(blob: Data, at path: URL) {}
    @handler public static func schedule(id: UUID, at date: Date) {}
    @handler public static func bill(_ invoice: Invoice, amount: Decimal) {}

    /// The store's type is named, so the target really uses the PostgreSQL product.
    public static func storeType() -> PostgresSignalStore.Type { PostgresSignalStore.self }
}
