import Foundation

/// A statement of a signal store's SQL, written once for every SQL store: its text with numbered
/// placeholders (`$1`, `$2`, …, which a ``SQLDialect`` renders), the values bound to them, and what
/// the store reads back from it.
@_spi(SignalStoreDriver)
public struct SQLStatement: Sendable, Hashable {
    /// What a store reads back from a statement.
    public enum Answer: Sendable, Hashable {
        /// The number of rows the statement changed, which counts for its step.
        case changes
        /// The ids of the rows it changed (the statement ends with `RETURNING id`), which count for
        /// its step.
        case ids
        /// Nothing: the statement prepares the next one (such as removing the bodies of the
        /// deliveries the next one removes) and does not count.
        case nothing
    }

    /// The SQL, with placeholders `$1`, `$2`, … (numbered from 1; one may stand several times).
    public let sql: String
    /// The value of each placeholder, in order.
    public let arguments: [SQLValue]
    public let answer: Answer
    /// Whether the text differs from one call to the next (it holds literal values): a store that
    /// keeps statements prepared does not keep this one.
    package let textVaries: Bool

    /// A statement of `sql` with `arguments` bound to its placeholders, answering `answer`.
    public init(_ sql: String, _ arguments: [SQLValue] = [], answer: Answer = .changes) {
        self.init(sql, arguments, answer: answer, textVaries: false)
    }

    package init(_ sql: String, _ arguments: [SQLValue], answer: Answer, textVaries: Bool) {
        self.sql = sql
        self.arguments = arguments
        self.answer = answer
        self.textVaries = textVaries
    }
}

/// A value bound to a statement: the types the stores' columns hold.
@_spi(SignalStoreDriver)
public enum SQLValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A whole number (`INTEGER`, `BIGINT`; a boolean as 0 or 1).
    case integer(Int64)
    /// A floating-point number (`REAL`, `DOUBLE PRECISION`): times are seconds since 1970.
    case real(Double)
    /// Text (`TEXT`).
    case text(String)
    /// Bytes (`BLOB`, `BYTEA`): handler documents and payloads.
    case blob([UInt8])
}

@_spi(SignalStoreDriver)
extension SQLValue {
    /// Text.
    public init(_ value: String) { self = .text(value) }
    /// A whole number.
    public init(_ value: Int) { self = .integer(Int64(value)) }
    /// A whole number.
    public init(_ value: Int64) { self = .integer(value) }
    /// A floating-point number.
    public init(_ value: Double) { self = .real(value) }
    /// A floating-point number, or `NULL`.
    public init(_ value: Double?) { self = value.map(SQLValue.real) ?? .null }
    /// Text, or `NULL`.
    public init(_ value: String?) { self = value.map(SQLValue.text) ?? .null }
    /// Bytes.
    public init(_ value: [UInt8]) { self = .blob(value) }
}

/// What differs between the SQL the stores run: how a placeholder is written, and the row locks only
/// PostgreSQL takes (``lockingSkipLocked``). Everything else (`RETURNING`,
/// `ON CONFLICT`, `CASE`, `||`, `CAST(… AS TEXT)`) is written the way both SQLite and PostgreSQL
/// read it.
@_spi(SignalStoreDriver)
public enum SQLDialect: Sendable {
    /// SQLite: `?1`, `?2`, …
    case sqlite
    /// PostgreSQL: `$1`, `$2`, … as written.
    case postgres

    /// `statement`'s SQL as this dialect reads it. It is rendered at every call of a statement (a post
    /// runs six), so byte by byte: Foundation's `replacingOccurrences(of:with:)` would cost more than
    /// the statements themselves.
    public func render(_ statement: SQLStatement) -> String {
        switch self {
        case .postgres: statement.sql
        case .sqlite:
            String(decoding: statement.sql.utf8.map { $0 == UInt8(ascii: "$") ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
        }
    }

    /// What ends a `SELECT` whose rows a transaction changes next, while other transactions may claim
    /// the same rows: on PostgreSQL, ` FOR UPDATE SKIP LOCKED` (the rows are locked, and rows another
    /// transaction locked are skipped); nothing on SQLite, whose write transactions run one at a time.
    public var lockingSkipLocked: String {
        switch self {
        case .postgres: " FOR UPDATE SKIP LOCKED"
        case .sqlite: ""
        }
    }
}
