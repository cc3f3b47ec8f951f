/// A read written once for every SQL store: one statement, and how the rows it returns become
/// `Value`. A store runs the statement (``SQLDialect`` renders its placeholders), hands over its
/// rows, and calls ``decode``. The reads of ``SignalStore`` carry one (``StoreRead/sql``).
@_spi(SignalStoreDriver)
public struct SQLRead<Value>: Sendable {
    /// What the read is for, as a store names it in an error ("listing consumers").
    public let purpose: String
    /// The statement that reads the rows.
    public let statement: SQLStatement
    /// Makes the value of the rows the statement returned.
    public let decode: @Sendable ([SQLRow]) throws(SignalError) -> Value

    /// A read named `purpose` that runs `statement` and makes its value of the rows with `decode`.
    public init(
        _ purpose: String, _ statement: SQLStatement,
        decode: @escaping @Sendable ([SQLRow]) throws(SignalError) -> Value
    ) {
        self.purpose = purpose
        self.statement = statement
        self.decode = decode
    }
}
