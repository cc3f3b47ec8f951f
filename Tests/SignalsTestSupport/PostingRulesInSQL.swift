import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The post's rules as SQL (`Posting.revisionSQL`, `receivesSQL`, `servesSQL`, `keepsRecordSQL`), put
/// to a real database for every combination of their inputs and compared with what the Swift rules
/// decide for the same inputs. Each test target passes its database: SQLite in
/// `HandlerKitSignalsTests`, the PostgreSQL server in `HandlerKitSignalsPostgresTests`.
package enum PostingRulesInSQL {
    /// A database's answer that differs from the Swift rule's.
    package struct Mismatch: CustomStringConvertible, Sendable {
        package var sql: String
        package var database: Int?
        package var swift: Int

        package var description: String {
            "SELECT \(sql) gave \(database.map(String.init) ?? "NULL"), the Swift rule \(swift)"
        }
    }

    /// The stored modes a consumer can have: the known ones, and one the core does not know.
    static let modes = [DeliveryMode.once.rawValue, DeliveryMode.everyRevision.rawValue, "sometimes"]

    /// Every rule for every input, each evaluated by `evaluate` (which runs `SELECT <expression>` and
    /// returns the integer it gives, `nil` for NULL); `boolean` spells a boolean literal in the
    /// database's dialect. Returns the mismatches and the number of expressions evaluated.
    package static func mismatches(
        boolean: (Bool) -> String, evaluate: (String) async throws -> Int?
    ) async throws -> (mismatches: [Mismatch], evaluated: Int) {
        var mismatches: [Mismatch] = []
        var evaluated = 0
        func check(_ sql: String, _ swift: Int) async throws {
            let answer = try await evaluate(sql)
            evaluated += 1
            if answer != swift { mismatches.append(Mismatch(sql: sql, database: answer, swift: swift)) }
        }
        func asInteger(_ condition: String) -> String { "CASE WHEN \(condition) THEN 1 ELSE 0 END" }

        for previous in [nil, 0, 1, 4, 1_000_000] as [Int?] {
            let sql = Posting.revisionSQL(after: previous.map(String.init) ?? "CAST(NULL AS INTEGER)")
            try await check(sql, Posting.revision(after: previous))
        }
        for mode in modes {
            let literal = "'\(mode)'"
            try await check(asInteger(Posting.servesSQL(mode: literal)), Posting.serves(mode: mode) ? 1 : 0)
            // The served mark is an integer: 0 when not served, 1 (any other value) when served.
            for served in [0, 1, 2] {
                let consumer = Posting.Consumer(mode: mode, served: served != 0)
                try await check(
                    asInteger(Posting.receivesSQL(mode: literal, served: String(served))),
                    Posting.receives(consumer) ? 1 : 0)
            }
        }
        for hasConsumer in [false, true] {
            for keepUntil in [nil, 0, 1_700_000_000.5] as [Double?] {
                let posting = Posting(
                    signalID: "s", payload: [], keepUntil: keepUntil.map { Date(timeIntervalSince1970: $0) })
                let keep = keepUntil.map { String($0) } ?? "CAST(NULL AS DOUBLE PRECISION)"
                try await check(
                    asInteger(Posting.keepsRecordSQL(hasConsumer: boolean(hasConsumer), keepUntil: keep)),
                    posting.keepsRecord(hasConsumer: hasConsumer) ? 1 : 0)
            }
        }
        return (mismatches, evaluated)
    }
}
