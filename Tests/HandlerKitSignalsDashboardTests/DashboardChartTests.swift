#if SignalsDashboard
import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The overview's chart of posts and completions, read without a browser: what it counts for the
/// request and response pattern, whose one-shot signals leave the store once delivered.
@Suite("Signals: the handlerkit-dashboard chart of posts and completions")
struct DashboardChartTests {
    let folder = TemporaryFolder()
    var path: String { folder.path + "/signals.sqlite" }

    @Test func oneShotSignalsThatWereDeliveredCountAsPosts() async throws {
        let requests = 12
        let store = try SQLiteSignalStore(path: path)
        let registry = try makeRegistry(Recorder())
        let api = try await manualCenter("api", store: store, registry: registry)
        let worker = try await manualCenter("worker", store: store, registry: registry)
        // Each request waits for its response on a signal of its own, delivered once.
        for _ in 0..<requests {
            let response = SignalID()
            try await api.register(try Handler(id: "Sink.receive", registry: registry), for: response)
            #expect(try await worker.post(response, payload: ["item": 1]).deliveries == 1)
        }
        #expect(try await api.deliverDue() == requests)
        try await api.stop()
        try await worker.stop()
        #expect(try await store.statistics().signals == 0, "the one-shot signals left the store")

        let server = try await DashboardServer.start(store: path, folder: folder.path)
        let page: String
        do {
            page = try await Self.text(of: server.base + "/")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        #expect(Self.number(in: page, id: "completions-total") == requests, "\(page)")
        #expect(Self.number(in: page, id: "posts-total") == requests, "\(page)")
    }

    /// The number in the element with id `id` of `page`.
    static func number(in page: String, id: String) -> Int? {
        guard let range = page.range(of: "id=\"\(id)\">") else { return nil }
        return Int(page[range.upperBound...].prefix { $0.isNumber })
    }

    /// The text of the page at `url`.
    static func text(of url: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: url)))
        return String(decoding: data, as: UTF8.self)
    }
}
#endif
