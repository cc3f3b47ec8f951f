/// A read of a signal store, written once for every store: the statement a SQL store runs
/// (``sql``), and the same question asked of the table engine (`SignalTables.read(_:)`), which
/// ``InMemorySignalStore`` and any other store without SQL ask. A store answers it with
/// ``SignalStore/read(_:)``, in one read transaction.
///
/// The reads themselves are the core's (`SignalStore.consumers(of:)`, `SignalStore.runStatus(of:)`,
/// the promise and inspection reads, …): a store implements ``SignalStore/read(_:)`` once, and a
/// read added later needs nothing more from it.
@_spi(SignalStoreDriver)
public struct StoreRead<Value: Sendable>: Sendable {
    /// The statement and how its rows become the value, for a SQL store.
    public let sql: SQLRead<Value>
    /// The value read from the table engine (`SignalTables.read(_:)` asks it).
    package let tables: @Sendable (SignalTables) -> Value

    package init(_ sql: SQLRead<Value>, tables: @escaping @Sendable (SignalTables) -> Value) {
        self.sql = sql
        self.tables = tables
    }

    /// The same read, its value made into another with `transform`.
    package func map<Other>(_ transform: @escaping @Sendable (Value) -> Other) -> StoreRead<Other> {
        let decode = sql.decode
        return StoreRead<Other>(
            SQLRead(sql.purpose, sql.statement) { (rows: [SQLRow]) throws(SignalError) -> Other in
                transform(try decode(rows))
            },
            tables: { [tables] in transform(tables($0)) })
    }
}
