@_spi(SignalStoreDriver) import HandlerKitSignals

/// The SQL a SQL store reads about runs inside its own transactions.
package enum RunStatements {
    /// Whether run `run` is recorded (not ended, not taken over): read in a takeover's transaction,
    /// where a taker that was itself taken over takes nothing over.
    package static func isRecorded(_ run: String) -> SQLRead<Bool> {
        SQLRead(
            "finding run \(run)", SQLStatement("SELECT count(*) AS recorded FROM runs WHERE run_id = $1", [.init(run)])
        ) { (rows: [SQLRow]) throws(SignalError) -> Bool in
            let count: Int =
                try rows.first.map { row throws(SignalError) in
                    try row.value("recorded", table: "runs", key: run)
                } ?? 0
            return count > 0
        }
    }
}
