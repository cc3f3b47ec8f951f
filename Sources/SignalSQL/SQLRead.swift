@_spi(SignalStoreDriver) import HandlerKitSignals

/// A read written once for both SQL stores: one statement, and how the rows it returns become
/// `Value`. A store runs the statement (``SQLDialect`` renders its placeholders), hands over its
/// rows, and calls ``decode``.
package struct SQLRead<Value>: Sendable {
    /// What the read is for, as a store names it in an error ("listing consumers").
    package let purpose: String
    package let statement: SQLStatement
    /// Makes the value of the rows the statement returned.
    package let decode: @Sendable ([SQLRow]) throws(SignalError) -> Value

    package init(
        _ purpose: String, _ statement: SQLStatement,
        decode: @escaping @Sendable ([SQLRow]) throws(SignalError) -> Value
    ) {
        self.purpose = purpose
        self.statement = statement
        self.decode = decode
    }
}
