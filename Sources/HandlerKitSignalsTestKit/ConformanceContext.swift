import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// What a check works with: the store under test, a registry of handlers that record what they
/// receive, and the assertions, which throw `ConformanceFailure`.
struct ConformanceContext: Sendable {
    let check: String
    let store: any SignalStore
    let recorder = Recorder()
    let registry: HandlerRegistry

    init(check: String, store: any SignalStore) throws {
        self.check = check
        self.store = store
        registry = try makeRegistry(recorder)
    }

    /// A center that delivers only when `deliverDue()` is called, so checks decide when.
    func center(
        _ component: String, registry: HandlerRegistry? = nil, retry: RetryPolicy = RetryPolicy(),
        queueConcurrency: Int = 4
    ) async throws -> SignalCenter {
        try await SignalCenter.start(
            component: component, store: store, registry: registry ?? self.registry,
            options: .init(retry: retry, deliversAutomatically: false, queueConcurrency: queueConcurrency))
    }

    /// A handler of the checks' registry.
    func handler(_ id: String) throws -> Handler {
        try Handler(id: id, registry: registry)
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String, line: Int = #line) throws {
        if !condition { throw ConformanceFailure(check: check, message: message(), line: line) }
    }

    func expectEqual<T: Equatable>(_ found: T, _ expected: T, _ what: String, line: Int = #line) throws {
        if found != expected {
            throw ConformanceFailure(check: check, message: "\(what): expected \(expected), found \(found)", line: line)
        }
    }

    func require<T>(_ value: T?, _ what: String, line: Int = #line) throws -> T {
        guard let value else {
            throw ConformanceFailure(check: check, message: "expected \(what), found none", line: line)
        }
        return value
    }

    /// The `SignalError` `body` throws; a failure when it throws none or another error.
    func error(_ what: String, line: Int = #line, _ body: () async throws -> Void) async throws -> SignalError {
        do {
            try await body()
        } catch let error as SignalError {
            return error
        } catch {
            throw ConformanceFailure(check: check, message: "\(what): expected a SignalError, got \(error)", line: line)
        }
        throw ConformanceFailure(
            check: check, message: "\(what): expected a SignalError, nothing was thrown", line: line)
    }
}

/// A value whose encoding always fails.
struct Unencodable: Encodable {
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "never encodes"))
    }
}

extension SignalStoreStatistics {
    /// Nothing left but `completions` in the history.
    static func only(completions: Int) -> SignalStoreStatistics {
        var statistics = SignalStoreStatistics()
        statistics.completions = completions
        return statistics
    }
}
