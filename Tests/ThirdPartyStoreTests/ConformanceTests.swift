import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit
import Testing
import ThirdPartyStore

/// The shipped conformance suites (`HandlerKitSignalsTestKit`) against the JSON file store, as a
/// third party runs them against its own store: each check on a new, empty store.
@Suite("Third-party store: the conformance suites on a JSON file")
struct ConformanceTests {
    let folder = TemporaryFolder()

    /// A new store in a folder of its own.
    func makeStore() throws -> JSONFileSignalStore {
        try JSONFileSignalStore(folder: folder.path + "/" + UUID().uuidString)
    }

    @Test(arguments: SignalStoreConformance.checks)
    func store(_ check: SignalStoreConformance.Check) async throws {
        try await check.run { try makeStore() }
    }

    @Test(arguments: SignalStoreConformance.inspectionChecks)
    func inspection(_ check: SignalStoreConformance.Check) async throws {
        try await check.run { try makeStore() }
    }

    @Test(arguments: PromiseConformance.checks)
    func promises(_ check: SignalStoreConformance.Check) async throws {
        try await check.run { try makeStore() }
    }
}

/// A temporary folder, removed with the last reference to it.
final class TemporaryFolder: Sendable {
    let path: String

    init() {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent("third-party-store-\(UUID().uuidString)")
            .path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
