import Foundation

/// A row a SQL store read, its values by column name: what a store hands to a read (``SQLRead``),
/// which makes records of it.
@_spi(SignalStoreDriver)
public struct SQLRow: Sendable {
    private let names: [String]
    private let values: [SQLValue]

    /// A row of `values`, the columns named `names` in the same order.
    public init(names: [String], values: [SQLValue]) {
        self.names = names
        self.values = values
    }

    /// The value of column `name`; `nil` when the row has no such column (an older schema's).
    public subscript(_ name: String) -> SQLValue? {
        names.firstIndex(of: name).map { values[$0] }
    }

    /// Column `name` as `T`, or `SignalError.malformedRecord` naming the table, the record's key and
    /// the column, with what was found.
    package func value<T: SQLDecodable>(_ name: String, table: String, key: String) throws(SignalError) -> T {
        let stored = self[name] ?? .null
        guard let value = T(sqlValue: stored) else {
            throw .malformedRecord(
                table: table, key: key, column: name,
                reason: "expected \(T.self), found \(stored.description.prefix(60))")
        }
        return value
    }

    /// Column `name` as `T`; `nil` when it is NULL, missing or of another type.
    package func optional<T: SQLDecodable>(_ name: String) -> T? {
        self[name].flatMap(T.init(sqlValue:))
    }
}

@_spi(SignalStoreDriver)
extension SQLValue: CustomStringConvertible {
    /// The value for messages: `NULL`, `42`, `text 'one'`, `blob of 3 bytes`.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .text(let value): "text '\(value)'"
        case .blob(let value): "blob of \(value.count) bytes"
        }
    }
}

/// A Swift type a stored value is read as.
package protocol SQLDecodable {
    /// The value, or `nil` when `sqlValue` is not one of this type.
    init?(sqlValue: SQLValue)
}

extension String: SQLDecodable {
    package init?(sqlValue: SQLValue) {
        guard case .text(let value) = sqlValue else { return nil }
        self = value
    }
}

extension Int: SQLDecodable {
    package init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension Int64: SQLDecodable {
    package init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self = value
    }
}

extension Double: SQLDecodable {
    /// A real, or an integer (SQLite hands back a whole number stored in a REAL column as written).
    package init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Array: SQLDecodable where Element == UInt8 {
    package init?(sqlValue: SQLValue) {
        guard case .blob(let value) = sqlValue else { return nil }
        self = value
    }
}

extension Bool: SQLDecodable {
    /// An integer (0 is `false`), or a PostgreSQL boolean as the store reads it.
    package init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self = value != 0
    }
}
