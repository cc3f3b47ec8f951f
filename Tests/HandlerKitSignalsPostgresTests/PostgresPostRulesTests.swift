// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalsTestSupport
import Testing

/// The post's rules as the PostgreSQL store's post statement writes them in SQL, evaluated by the
/// test server for every input and compared with the core's Swift rules.
@Suite(
    "Signals on PostgreSQL: the post's rules in SQL",
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresPostRulesTests {
    @Test func thePostRulesInSQLSayWhatTheSwiftOnesSay() async throws {
        let (mismatches, evaluated) = try await PostingRulesInSQL.mismatches(
            boolean: { $0 ? "TRUE" : "FALSE" }, evaluate: PostgresTestServer.selectInteger)
        #expect(evaluated > 20)
        #expect(mismatches.isEmpty, "\(mismatches)")
    }
}
#endif
