#if SignalsDashboard
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection

extension Dashboard {
    /// The deliveries that match the query's filters, oldest first, at most `limit`; the dead letters
    /// page is the same for dead deliveries only.
    func deliveries(_ query: String?, section: Page.Section, now: Date) async throws -> Page {
        let dead = section == .dead
        var filters = try DeliveryQuery(
            try Parameters(
                query, known: dead ? DeliveryQuery.names.subtracting(["state"]) : DeliveryQuery.names,
                repeatable: ["state"]))
        if dead { filters.states = [.dead] }
        let found = try await reader.deliveries(matching: filters.filter(now: now, limit: filters.limit + 1))
        let shown = found.prefix(filters.limit)

        var body = filterForm(filters, path: section.path, showsStates: !dead)
        if found.count > filters.limit {
            body +=
                "<p class=\"note\" id=\"truncated\">Showing the oldest \(filters.limit); more deliveries match. "
                + "Narrow the filters, or raise the limit (at most \(DeliveryQuery.maximumLimit)).</p>"
        }
        body += "<p id=\"shown\">\(HTML.count(shown.count, "delivery", "deliveries")) shown, oldest first.</p>"
        let requeueable = filters.states?.contains(.dead) ?? true
        if requeueable && shown.contains(where: { $0.state == .dead }) {
            body +=
                "<p>"
                + HTML.link(
                    "/requeue", filters.items(states: false), "Requeue the dead deliveries matching these filters…",
                    class: "button")
                + "</p>"
        }
        if !shown.isEmpty {
            body += "<table id=\"deliveries\"><tr><th>key</th><th>state</th><th>component</th><th>signal</th>"
            body += "<th>handler</th><th>attempts</th><th>made</th><th>last error</th></tr>"
            for delivery in shown {
                let error = delivery.lastError ?? ""
                let cut = error.count > 140 ? String(error.prefix(139)) + "…" : error
                body +=
                    "<tr><td class=\"mono\">\(HTML.link("/delivery", [("key", delivery.key.rawValue)], delivery.key.rawValue))"
                    + "</td><td class=\"\(delivery.state == .dead ? "dead" : "")\">\(delivery.filterState.rawValue)</td>"
                    + "<td>\(HTML.escape(delivery.component))</td>"
                    + "<td>\(HTML.escape(delivery.signalID)) <span class=\"mono\">r\(delivery.revision)</span></td>"
                    + "<td class=\"mono\">\(HTML.escape(delivery.handlerID))</td>"
                    + "<td class=\"n\">\(delivery.attempts)</td><td>\(HTML.ago(delivery.madeAt, now: now))</td>"
                    + "<td title=\"\(HTML.escape(error))\">\(HTML.escape(cut))</td></tr>"
            }
            body += "</table>"
        }
        return Page(title: section.rawValue, section: section, body: HTML(body))
    }

    /// The filters as a form that reloads the page with them.
    private func filterForm(_ filters: DeliveryQuery, path: String, showsStates: Bool) -> String {
        var form = "<form class=\"filters\" method=\"get\" action=\"\(path)\">"
        if showsStates {
            let selected = filters.states?.count == 1 ? filters.states?.first : nil
            form += "<label>state<select name=\"state\"><option value=\"\">any</option>"
            for state in DeliveryFilter.State.allCases {
                form +=
                    "<option value=\"\(state.rawValue)\"\(state == selected ? " selected" : "")>"
                    + "\(state == .retrying ? "waiting for retry" : state.rawValue)</option>"
            }
            form += "</select></label>"
        }
        for (name, label, value) in [
            ("component", "component", filters.component), ("signal", "signal id", filters.signal),
            ("handler", "handler id", filters.handler), ("consumer", "consumer id", filters.consumer),
        ] {
            form += "<label>\(label)<input name=\"\(name)\" value=\"\(HTML.escape(value ?? ""))\" size=\"14\"></label>"
        }
        form +=
            "<label>older than<input name=\"older-than\" value=\"\(HTML.escape(filters.olderThan ?? ""))\" "
            + "size=\"6\" placeholder=\"15m\"></label>"
            + "<label>limit<input name=\"limit\" value=\"\(filters.limit)\" size=\"5\"></label>"
            + "<button type=\"submit\">Filter</button> "
            + HTML.link(path, [], "clear", class: "button secondary") + "</form>"
        return form
    }
}
#endif
