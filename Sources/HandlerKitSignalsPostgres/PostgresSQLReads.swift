// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import NIOCore
import PostgresNIO
import SignalSQL

extension PostgresSignalStore {
    /// Runs `read`'s statement (the SQL stores' own, `StoreReads`) and makes its value.
    func run<Value: Sendable>(_ read: SQLRead<Value>) async throws(SignalError) -> Value {
        try await prepare()
        let statement = read.statement
        let logger = options.logger
        let rows = try await connections.run(read.purpose) { connection, _ -> [SQLRow] in
            try await Self.rows(of: statement, connection, logger: logger)
        }
        return try read.decode(rows)
    }

    /// Runs `read`'s statement on `connection` (in the caller's transaction) and makes its value.
    func run<Value: Sendable>(_ read: SQLRead<Value>, on connection: PostgresConnection) async throws -> Value {
        try read.decode(try await Self.rows(of: read.statement, connection, logger: options.logger))
    }

    static func rows(
        of statement: SQLStatement, _ connection: PostgresConnection, logger: Logger
    ) async throws -> [SQLRow] {
        var rows: [SQLRow] = []
        for try await row in try await connection.query(
            PostgresQuery(unsafeSQL: statement.sql, binds: statement.arguments.bindings), logger: logger)
        {
            rows.append(try SQLRow(row))
        }
        return rows
    }
}

extension SQLRow {
    /// A row the server returned, each cell as the value of its type.
    init(_ row: PostgresRow) throws {
        var names: [String] = []
        var values: [SQLValue] = []
        for cell in row {
            names.append(cell.columnName)
            values.append(try SQLValue(cell))
        }
        self.init(names: names, values: values)
    }
}

extension SQLValue {
    /// A cell as the value of its type: the types of the store's columns and of what its reads compute
    /// (counts are `bigint`, comparisons `boolean`).
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int2, .int4, .int8: self = .integer(try cell.decode(Int64.self))
        case .float4, .float8: self = .real(try cell.decode(Double.self))
        case .bool: self = .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea: self = .blob(Array(try cell.decode(ByteBuffer.self).readableBytesView))
        default: self = .text(try cell.decode(String.self))
        }
    }
}
#endif
