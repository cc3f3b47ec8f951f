import ChatKit
import ClientCTypes
import Foundation
import HandlerKit

/// Registers the module's generated table, then for every handler form: creates a handler through
/// its generated reference, round-trips it through JSON, calls it (once through its generated typed
/// call) and checks what it did. Prints one
/// `ok` line per check; exits 1 at the first failure.
@main
enum PluginClientMain {
    static func main() async {
        do {
            try await run()
        } catch {
            print("FAIL: \(error)")
            exit(1)
        }
    }

    static func run() async throws {
        try HandlerRegistry.shared.register(.pluginClient)
        try HandlerRegistry.shared.register(.chatKit)
        print("registered: \(HandlerRegistry.shared.registeredIDs.joined(separator: ", "))")

        // The invalidation target is a generated id the compiler checks.
        let carbons = try roundTrip(Carbons.enabledHandler(account: Account(name: "ada"), invalidation: Session.endedHandlerID))
        try callSync(carbons, ["note": "hi"])
        try check("Carbons.enabled account=ada limit=10 note=hi")
        try await carbons.invalidate(["why": "logout"])
        try check("Session.ended account=ada why=logout")
        try await checkThrows("call after invalidate") { try await carbons.call() }

        let service = try roundTrip(Service.restartHandler(reason: "update"))
        try callSync(service)
        try check("Service.restart reason=update attempts=[1, 2]")
        try await checkThrows("a throwing handler's own error") { try callSync(service, ["reason": ""]) }

        let omemo = try roundTrip(OMEMO.bundleFetchedHandler(account: Account(name: "ada"), jid: "a@b", success: true))
        try await omemo.call(["rid": "r7"])
        try check("OMEMO.bundleFetched owner=ada jid=a@b success=true errorReason=nil rid=r7")
        // The generated typed call: call-time values as arguments the compiler checks.
        try await OMEMO.callBundleFetchedHandler(omemo, errorReason: "typed", rid: "r8")
        try check("OMEMO.bundleFetched owner=ada jid=a@b success=true errorReason=typed rid=r8")
        try await checkThrows("a sync call of an async handler") { try callSync(omemo) }

        try callSync(roundTrip(cleanUpHandler(reason: "daily")))
        try check("cleanup.v1 reason=daily")
        try callSync(roundTrip(pingHandler()))
        try check("ping")

        try await roundTrip(Outer.Inner.convertHandler(kind: .large, values: ["a": 1, "b": 2])).call()
        try check("Outer.Inner.convert kind=large total=3")

        try callSync(roundTrip(Conditional.activeHandler(value: 7)))
        try check("Conditional.active value=7")
        try await checkThrows("a handler under a false #if") { _ = try Handler(id: "Conditional.inactive") }

        let point = HKPoint(x: 1.5, y: -0.0, tag: -7)
        try callSync(roundTrip(Points.movedHandler(point: point, direction: HKDirectionDown)))
        try check("Points.moved x=1.5 y=-0.0 tag=-7 direction=2")

        try await checkAccessIsolationAndDefaults()

        try await checkThrows("a missing mandatory argument") { try callSync(Carbons.enabledHandler()) }
        try await checkThrows("a bound value of the wrong type in JSON") {
            _ = try Handler(json: #"{"bound":{"limit":"ten"},"id":"Carbons.enabled","version":1}"#)
        }
        print("PluginClient: all \(Journal.shared.passedChecks) checks passed")
    }

    /// ChatKit's public and package handlers through their generated helpers, across
    /// modules; handlers on the main actor; a default that names a private constant.
    static func checkAccessIsolationAndDefaults() async throws {
        let items = [FeedItem(id: "i1"), FeedItem(id: "i2")]
        let fetched = try roundTrip(Feed.itemsFetchedHandler(items: items, invalidation: Feed.clearedHandlerID))
        try Feed.callItemsFetchedHandler(fetched, page: 2)
        try check(#"Feed.itemsFetched items=["i1", "i2"] page=2"#)
        try await fetched.invalidate()
        try check("Feed.cleared count=2")
        try callSync(roundTrip(Moderation.mutedHandler(user: "bob", minutes: 5)))
        try check("Moderation.muted user=bob minutes=5")
        let badge = try roundTrip(Badge.bumpedHandler(amount: 2))
        try await badge.call()
        try check("Badge.bumped count=2")
        try await Badge.callBumpedHandler(badge, amount: 3)
        try check("Badge.bumped count=5")

        let banner = try roundTrip(Banner.showHandler(text: "hello"))
        try await banner.call()
        try check("Banner.show text=hello shown=1")
        try await checkThrows("a sync call of a main-actor handler") { try callSync(banner) }
        try await Toast.callPopHandler(roundTrip(Toast.popHandler()), message: "typed")
        try check("Toast.pop message=typed")

        let paging = try roundTrip(Paging.fetchHandler(page: 1))
        try callSync(paging)
        try check("Paging.fetch page=1 size=30")
        try Paging.callFetchHandler(paging, size: 5)
        try check("Paging.fetch page=1 size=5")
    }

    /// Calls `handler` from synchronous code (in async code `call` is the `async` overload).
    static func callSync(_ handler: Handler, _ arguments: CallArguments = [:]) throws {
        try handler.callSynchronously(arguments)
    }

    /// The handler rebuilt from its own JSON, as another process would.
    static func roundTrip(_ handler: Handler) throws -> Handler {
        let rebuilt = try Handler(json: handler.jsonData())
        guard rebuilt.jsonData() == handler.jsonData() else { throw ClientError(message: "JSON round trip changed \(handler)") }
        return rebuilt
    }

    /// Checks that exactly `entry` was recorded since the last check.
    static func check(_ entry: String) throws {
        let entries = Journal.shared.take()
        guard entries == [entry] else { throw ClientError(message: "expected [\(entry)], got \(entries)") }
        Journal.shared.passCheck()
        print("ok: \(entry)")
    }

    /// Checks that `body` throws and runs no handler.
    static func checkThrows(_ what: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            let entries = Journal.shared.take()
            guard entries.isEmpty else { throw ClientError(message: "\(what) ran \(entries)") }
            Journal.shared.passCheck()
            print("ok: \(what) throws: \(error)")
            return
        }
        throw ClientError(message: "\(what) did not throw")
    }
}
