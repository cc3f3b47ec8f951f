#if SignalsDashboard
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection
import SignalStoreOpening

/// The actions: a GET shows what would change and a form to confirm it with the action token; the
/// form's POST changes the store and shows what changed.
extension Dashboard {
    /// The most dead deliveries one confirmation requeues (the oldest first).
    static let maximumRequeue = 1_000

    /// The fields of the requeue form: one delivery's key, or the filters the dead ones matched
    /// (with `made-before`, the time the form was shown less `older-than`).
    var requeueFields: Set<String> {
        ["form-token", "token", "key", "component", "signal", "handler", "consumer", "made-before"]
    }

    var discardFields: Set<String> { ["form-token", "token", "key"] }

    // MARK: Requeue

    /// What a requeue would change: one dead delivery (`key`), or the dead ones matching the filters.
    func confirmRequeue(_ query: String?, now: Date) async throws -> Page {
        let parameters = try Parameters(
            query, known: DeliveryQuery.names.subtracting(["state", "limit"]).union(["key"]))
        if let key = try parameters["key"].map({ (text: String) throws(InputError) in try DeliveryQuery.key(text) }) {
            guard let delivery = try await reader.delivery(key) else { return Self.noDelivery(key) }
            guard delivery.state == .dead else {
                return Page(
                    title: "Nothing to requeue", section: .deliveries,
                    body: HTML(
                        "<p class=\"note\" id=\"result\">Delivery \(HTML.escape(key.rawValue)) is "
                            + "\(delivery.filterState.rawValue), not dead: there is nothing to requeue.</p>"
                            + "<p>\(HTML.link("/delivery", [("key", key.rawValue)], "Back to the delivery"))</p>"))
            }
            let body =
                "<p>Requeueing makes this dead delivery pending again, due now, with a fresh count of attempts and "
                + "no last error. Its run delivers it; when that run is gone, the next process of its component "
                + "does. Requeue only once the cause is fixed, or it dies again.</p>"
                + "<dl class=\"fields\">\(Self.fields(of: delivery, now: now))</dl>"
                + confirmation(
                    action: "/requeue", hidden: [("key", key.rawValue)], button: "Requeue 1 dead delivery",
                    cancel: HTML.url("/delivery", [("key", key.rawValue)]))
            return Page(title: "Requeue delivery \(key)?", section: .deliveries, body: HTML(body))
        }
        let filters = try DeliveryQuery(parameters)
        // Fixed now, so that no delivery made after this page was shown is requeued by its form.
        let madeBefore = now.addingTimeInterval(-(filters.age?.seconds ?? 0))
        var filter = filters.filter(now: now, limit: Self.maximumRequeue + 1)
        filter.states = [.dead]
        let dead = try await reader.deliveries(matching: filter)
        guard !dead.isEmpty else {
            return Page(
                title: "Nothing to requeue", section: .dead,
                body: HTML("<p class=\"note\" id=\"result\">No dead delivery matches these filters.</p>"))
        }
        let count = min(dead.count, Self.maximumRequeue)
        var body = "<p>These dead deliveries become pending again, due now, with a fresh count of attempts"
        body += " and no last error: <b id=\"to-change\">\(count)</b>"
        body += dead.count > count ? " (the oldest \(count); more match: confirm again for the rest)." : "."
        body += "</p><p>Filters: \(Self.describe(filters))</p>" + Self.keyList(dead.prefix(count).map(\.key))
        var hidden = filters.items(states: false).filter { $0.0 != "older-than" }
        hidden.append(("made-before", "\(madeBefore.timeIntervalSince1970)"))
        body += confirmation(
            action: "/requeue", hidden: hidden,
            button: "Requeue \(HTML.count(count, "dead delivery", "dead deliveries"))",
            cancel: HTML.url("/dead", filters.items(states: false)))
        return Page(title: "Requeue dead deliveries?", section: .dead, body: HTML(body))
    }

    /// Requeues what the confirmed form names, and says what changed.
    func requeue(_ form: Parameters) async throws -> Page {
        if let text = form["key"] {
            let key = try DeliveryQuery.key(text)
            let writer = try await location.openForChanging()
            let requeued = try await writer.requeue(matching: DeliveryFilter(key: key))
            await StoreLocation.close(writer)
            guard !requeued.isEmpty else {
                guard let now = try await reader.delivery(key) else { return Self.noDelivery(key) }
                return Page(
                    title: "Nothing changed", section: .deliveries,
                    body: HTML(
                        "<p class=\"note\" id=\"result\">Delivery \(HTML.escape(key.rawValue)) is "
                            + "\(now.filterState.rawValue), not dead: nothing changed.</p>"))
            }
            var body = "<p class=\"done\" id=\"result\">Requeued 1 delivery: pending, due now.</p>"
            if let now = try await reader.delivery(key) {
                body += "<h2>The delivery now</h2><dl class=\"fields\">\(Self.fields(of: now, now: Date()))</dl>"
            }
            body += "<p>\(HTML.link("/delivery", [("key", key.rawValue)], "Open the delivery"))</p>"
            return Page(title: "Requeued", section: .deliveries, body: HTML(body))
        }
        var filter = DeliveryFilter(
            states: [.dead], component: form["component"], signalID: form["signal"], handlerID: form["handler"],
            consumerID: form["consumer"].map(ConsumerID.init), limit: Self.maximumRequeue)
        if let text = form["made-before"] {
            guard let seconds = Double(text), seconds.isFinite else {
                throw InputError("made-before '\(text)' is not a time in seconds since 1970")
            }
            filter.madeBefore = Date(timeIntervalSince1970: seconds)
        }
        let writer = try await location.openForChanging()
        let requeued = try await writer.requeue(matching: filter)
        await StoreLocation.close(writer)
        var rest = filter
        rest.limit = nil
        let remaining = try await reader.deliveries(matching: rest).count
        var body =
            "<p class=\"done\" id=\"result\">Requeued "
            + "\(HTML.count(requeued.count, "delivery", "deliveries")): pending, due now.</p>"
        body += Self.keyList(requeued.map(\.key))
        if remaining > 0 {
            body +=
                "<p class=\"note\">\(HTML.count(remaining, "dead delivery still matches", "dead deliveries still match"))"
                + " the filters.</p>"
        }
        return Page(title: "Requeued", section: .dead, body: HTML(body))
    }

    // MARK: Discard

    /// What discarding a delivery would change.
    func confirmDiscard(_ parameters: Parameters, now: Date) async throws -> Page {
        let key = try DeliveryQuery.key(try parameters.required("key"))
        guard let delivery = try await reader.delivery(key) else { return Self.noDelivery(key) }
        guard delivery.state != .claimed else { return Self.claimed(delivery) }
        let body =
            "<p>Discarding removes this \(delivery.filterState.rawValue) delivery: its handler never runs for it "
            + "and no completion is recorded.</p><dl class=\"fields\">\(Self.fields(of: delivery, now: now))</dl>"
            + confirmation(
                action: "/discard", hidden: [("key", key.rawValue)], button: "Discard 1 delivery",
                cancel: HTML.url("/delivery", [("key", key.rawValue)]))
        return Page(title: "Discard delivery \(key)?", section: .deliveries, body: HTML(body))
    }

    /// Discards the confirmed delivery, and says what changed.
    func discard(_ form: Parameters) async throws -> Page {
        let key = try DeliveryQuery.key(try form.required("key"))
        let writer = try await location.openForChanging()
        let outcome = try await writer.discardDelivery(key)
        await StoreLocation.close(writer)
        switch outcome {
        case .discarded(let removed):
            return Page(
                title: "Discarded", section: .deliveries,
                body: HTML(
                    "<p class=\"done\" id=\"result\">Discarded delivery \(HTML.escape(removed.key.rawValue)) "
                        + "(it was \(removed.filterState.rawValue)). Its handler will not run for it.</p>"))
        case .claimed(let claimed): return Self.claimed(claimed)
        case .notFound: return Self.noDelivery(key)
        }
    }

    // MARK: Parts

    /// The confirmation form: the form token, the hidden fields, the action token to type, the button.
    private func confirmation(action: String, hidden: [(String, String)], button: String, cancel: String) -> String {
        guard requestGuard.actionsEnabled else {
            return
                "<p class=\"note\" id=\"disabled\">Actions are disabled: this dashboard was started without an "
                + "action token. Start it with <code>--token TOKEN</code> (or <code>HANDLERKIT_DASHBOARD_TOKEN"
                + "</code>) to requeue and discard from here.</p>"
        }
        var form = "<form method=\"post\" action=\"\(action)\" id=\"confirm-form\">"
        form += "<input type=\"hidden\" name=\"form-token\" value=\"\(requestGuard.formToken)\">"
        for (name, value) in hidden {
            form += "<input type=\"hidden\" name=\"\(HTML.escape(name))\" value=\"\(HTML.escape(value))\">"
        }
        form +=
            "<p><label>Action token (given when the dashboard was started) "
            + "<input type=\"password\" name=\"token\" id=\"token\" autocomplete=\"off\" required></label></p>"
            + "<p><button type=\"submit\" id=\"confirm\">\(HTML.escape(button))</button> "
            + "<a href=\"\(HTML.escape(cancel))\" class=\"button secondary\">Cancel</a></p></form>"
        return form
    }

    /// Up to twenty keys, linked, then how many more.
    private static func keyList(_ keys: [DeliveryKey]) -> String {
        guard !keys.isEmpty else { return "" }
        var list = "<ul id=\"keys\">"
        for key in keys.prefix(20) {
            list += "<li class=\"mono\">\(HTML.link("/delivery", [("key", key.rawValue)], key.rawValue))</li>"
        }
        if keys.count > 20 { list += "<li>and \(keys.count - 20) more</li>" }
        return list + "</ul>"
    }

    private static func describe(_ filters: DeliveryQuery) -> String {
        let items = filters.items(states: false)
        guard !items.isEmpty else { return "none (every dead delivery)" }
        return items.map { "\($0.0) <code>\(HTML.escape($0.1))</code>" }.joined(separator: ", ")
    }

    private static func noDelivery(_ key: DeliveryKey) -> Page {
        .problem(
            .notFound, "No such delivery",
            "Nothing changed: there is no delivery '\(key)' in the store (completed, discarded, or never made).")
    }

    private static func claimed(_ delivery: DeliveryRecord) -> Page {
        .problem(
            .conflict, "The delivery is claimed",
            "Nothing changed: delivery \(delivery.key) is claimed by run \(delivery.claimedBy ?? "?") "
                + "(attempt \(delivery.attempts)); its handler may be running. Try again once it is settled, or "
                + "once its run is gone and taken over.")
    }
}
#endif
