import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsTestKit
import SignalsTestSupport
import TestWaiting
import Testing

/// A resource of a process that no post can carry (not `Codable`).
private final class PhotoLibrary: Sendable {
    let saved = Locked<[String]>([])
}

@Suite("Signals: the values a center gives its handlers")
struct HandlerContextTests {
    private let registry = HandlerRegistry()
    private let centers = Locked<[String]>([])

    init() throws {
        let centers = centers
        try registry.register(
            HandlerTable(
                module: "Context",
                handlers: [
                    HandlerDescriptor(
                        id: "Context.save",
                        parameters: [
                            .required("photoID", String.self), .required("library", PhotoLibrary.self),
                            .required("signalCenter", SignalCenter.self),
                        ],
                        invoke: { arguments in
                            let library: PhotoLibrary = try arguments.required("library")
                            let center: SignalCenter = try arguments.required("signalCenter")
                            let photoID: String = try arguments.required("photoID")
                            library.saved.withLock { $0.append(photoID) }
                            centers.withLock { $0.append(center.component) }
                        })
                ]))
    }

    @Test func aHandlerReceivesTheProcessValuesAndItsCenter() async throws {
        let library = PhotoLibrary()
        var options = SignalCenter.Options(deliversAutomatically: false)
        options.context.provide(library, as: "library")
        let center = try await SignalCenter.start(
            component: "photos", store: InMemorySignalStore(), registry: registry, options: options)
        try await center.register(try Handler(id: "Context.save", registry: registry), for: "photo.taken")
        try await center.post("photo.taken", payload: ["photoID": "p1"])
        #expect(try await center.deliverDue() == 1)
        #expect(library.saved.withLock { $0 } == ["p1"])
        #expect(centers.withLock { $0 } == ["photos"])
        try await center.stop()
    }

    @Test func aProcessThatDoesNotProvideAValueCallsNoHandlerAndSaysWhichValue() async throws {
        let problems = Locked<[SignalError]>([])
        let store = InMemorySignalStore()
        let lacking = try await SignalCenter.start(
            component: "photos", store: store, registry: registry,
            options: .init(
                retry: RetryPolicy(maximumAttempts: 2, firstDelay: .milliseconds(1)), deliversAutomatically: false,
                onProblem: { problem in problems.withLock { $0.append(problem) } }))
        try await lacking.register(try Handler(id: "Context.save", registry: registry), for: "photo.taken")
        try await lacking.post("photo.taken", payload: ["photoID": "p2"])
        #expect(try await lacking.deliverDue() == 0)
        let reported = try #require(problems.withLock { $0.first })
        guard case .invalidHandler(let handler, let reason) = reported else {
            Issue.record("expected invalidHandler, found \(reported)")
            return
        }
        #expect(handler == "Context.save")
        #expect(reason.contains("'library' (PhotoLibrary)") && reason.contains("provide(_:as: \"library\")"))
        // Given back, not dead: a process that provides the library runs it.
        #expect(try await lacking.deadDeliveries().isEmpty)
        try await lacking.stop()

        let library = PhotoLibrary()
        var options = SignalCenter.Options(deliversAutomatically: false)
        options.context.provide(library, as: "library")
        let providing = try await SignalCenter.start(
            component: "photos", store: store, registry: registry, options: options)
        try await TestWait.until("the delivery's retry") { try await providing.deliverDue() == 1 }
        #expect(library.saved.withLock { $0 } == ["p2"])
        try await providing.stop()
    }

    @Test func afterItsAttemptsTheDeliveryIsDeadWithTheReason() async throws {
        let center = try await SignalCenter.start(
            component: "photos", store: InMemorySignalStore(), registry: registry,
            options: .init(retry: RetryPolicy(maximumAttempts: 1), deliversAutomatically: false))
        try await center.register(try Handler(id: "Context.save", registry: registry), for: "photo.taken")
        try await center.post("photo.taken", payload: ["photoID": "p3"])
        #expect(try await center.deliverDue() == 0)
        let dead = try await center.deadDeliveries()
        #expect(dead.count == 1)
        #expect(dead.first?.reason.contains("was not called on attempt 1") == true)
        #expect(dead.first?.reason.contains("'library'") == true)
        try await center.stop()
    }
}
