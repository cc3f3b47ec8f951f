import Foundation
import HandlerKit

/// Handlers whose parameters are Foundation types and a type of this module. This target depends on
/// the PostgreSQL store, and with its trait on, on postgres-nio and BoringSSL, whose C headers
/// mention `Data` and the others and cannot be parsed on their own: the build plugin must not look
/// these types up in C headers, so the package building is the test (as for any server target that
/// declares handlers beside the PostgreSQL store).
enum ProbeFoundationHandlers {
    /// A type of this module, which the generator knows from the scan.
    struct Receipt: Codable, Sendable {
        var number: Int
    }

    @handler
    static func upload(body: Data, at date: Date, from source: URL, id: UUID) {}

    @handler
    static func bill(_ receipt: Receipt, amount: Decimal) {}
}
