#if SignalsDashboard
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection

extension Dashboard {
    /// Above this many stored deliveries and completions together, the overview draws no chart:
    /// drawing it reads every one of them.
    static let chartLimit = 200_000

    /// The overview: counts by component and state, the runs, what waits and what is dead, and
    /// posts and completions per minute over the last hour.
    func overview(_ parameters: Parameters, now: Date) async throws -> Page {
        let status = try await reader.status(now: now)
        let blocked = try await reader.blockedOrderingKeys()
        let states: [(DeliveryFilter.State, String)] = [
            (.pending, "pending"), (.retrying, "waiting for retry"), (.claimed, "claimed"), (.dead, "dead"),
        ]
        var body = "<div class=\"cards\">"
        let waiting = status.counts.filter { $0.state == .pending || $0.state == .retrying }.reduce(0) { $0 + $1.count }
        let claimed = status.counts.filter { $0.state == .claimed }.reduce(0) { $0 + $1.count }
        for (label, value, id, link) in [
            ("dead letters", "\(status.deadDeliveries)", "dead-letters", "/dead"),
            ("blocked ordering keys", "\(blocked.count)", "blocked-keys", blocked.isEmpty ? nil : "#blocked"),
            ("waiting", "\(waiting)", "waiting", "/deliveries?state=pending&state=retrying"),
            ("claimed", "\(claimed)", "claimed", "/deliveries?state=claimed"),
            ("consumers", "\(status.consumers)", "consumers", "/consumers"),
            ("kept signals", "\(status.keptSignals)", "kept-signals", nil),
            ("completions in the history", "\(status.completions)", "completions", nil),
            ("oldest waiting", status.oldestWaiting.map { HTML.age($0, now: now) } ?? "none", "oldest-waiting", nil),
        ] {
            let value = link.map { "<a href=\"\($0)\">\(value)</a>" } ?? value
            body += "<div class=\"card\"><b id=\"\(id)\">\(value)</b>\(label)</div>"
        }
        body += "</div>"

        body += "<h2>Deliveries by component</h2>"
        if status.counts.isEmpty {
            body += "<p>No deliveries are stored.</p>"
        } else {
            body += "<table id=\"counts\"><tr><th>component</th>"
            body += states.map { "<th>\($0.1)</th>" }.joined() + "</tr>"
            for component in Set(status.counts.map(\.component)).sorted() {
                body += "<tr><td>\(HTML.escape(component))</td>"
                for (state, _) in states {
                    let count = status.count(of: component, in: state)
                    let link = HTML.link(
                        "/deliveries", [("state", state.rawValue), ("component", component)], "\(count)",
                        class: state == .dead && count > 0 ? "dead" : nil)
                    body +=
                        "<td class=\"n\" data-count=\"\(HTML.escape(component))/\(state.rawValue)\">"
                        + "\(count == 0 ? "0" : link)</td>"
                }
                body += "</tr>"
            }
            body += "</table>"
        }
        for component in status.componentsWithoutLiveRun {
            body +=
                "<p class=\"note\">\(HTML.escape(component)): no run alive; its waiting deliveries run when a "
                + "process of \(HTML.escape(component)) starts.</p>"
        }

        if !blocked.isEmpty { body += Self.blockedKeys(blocked, now: now) }

        body += "<h2>Runs</h2>"
        if status.runs.isEmpty {
            body += "<p id=\"runs\">No run is recorded.</p>"
        } else {
            body += "<table id=\"runs\"><tr><th>component</th><th>host</th><th>pid</th><th>started</th><th>run</th>"
            body += "<th>state</th></tr>"
            for run in status.runs {
                body +=
                    "<tr><td>\(HTML.escape(run.component))</td><td>\(HTML.escape(run.host ?? "this machine"))</td>"
                    + "<td class=\"n\">\(run.processID)</td><td>\(HTML.ago(run.startedAt, now: now))</td>"
                    + "<td class=\"mono\">\(HTML.escape(run.runID))</td>"
                    + (run.isAlive ? "<td class=\"alive\">alive</td>" : "<td class=\"gone\">gone</td>") + "</tr>"
            }
            body += "</table>"
        }

        body += "<h2>Posts and completions per minute, last \(ThroughputChart.minutes) minutes</h2>"
        let stored = status.counts.reduce(0) { $0 + $1.count } + status.completions
        if stored > Self.chartLimit {
            body +=
                "<p class=\"note\">Not drawn: the store holds \(stored) deliveries and completions, and the chart "
                + "reads every one (at most \(Self.chartLimit)).</p>"
        } else {
            let chart = ThroughputChart(
                now: now, deliveries: try await reader.deliveries(),
                signals: try await reader.signals(),
                completions: try await reader.completions(matching: CompletionFilter()))
            body +=
                "<p><span style=\"color:#457b9d\">■</span> posts: <b id=\"posts-total\">\(chart.posts.reduce(0, +))"
                + "</b> &nbsp; <span style=\"color:#2a9d8f\">■</span> completions: <b id=\"completions-total\">"
                + "\(chart.completions.reduce(0, +))</b> in the last \(ThroughputChart.minutes) minutes (UTC)</p>"
            body += chart.svg
            body += "<p class=\"mono\" style=\"max-width:60em\">\(HTML.escape(ThroughputChart.definition))</p>"
        }
        return Page(title: "Overview", section: .overview, body: HTML(body))
    }

    /// The ordering keys whose first delivery is dead or waiting for its retry, and how to release them.
    static func blockedKeys(_ blocked: [BlockedOrderingKey], now: Date) -> String {
        var body = "<h2>Blocked ordering keys</h2>"
        body +=
            "<p>The deliveries of an ordering key run one at a time, in order: these wait behind their key's first "
            + "delivery. Requeue a dead one to run it again first, or discard it to let the next one run.</p>"
        body += "<table id=\"blocked\"><tr><th>ordering key</th><th>component</th><th>first delivery</th>"
        body += "<th>state</th><th>waiting</th></tr>"
        for key in blocked {
            let head = key.head
            let waiting = HTML.link(
                "/deliveries", [("consumer", head.consumerID.rawValue), ("ordering-key", key.orderingKey)],
                "\(key.waiting)")
            let state =
                key.needsOperator
                ? "<span class=\"dead\">dead</span>" : "retry \(HTML.ago(head.dueAt, now: now))"
            body +=
                "<tr><td class=\"mono\">\(HTML.escape(key.orderingKey))</td><td>\(HTML.escape(head.component))</td>"
                + "<td>\(HTML.link("/delivery", [("key", head.key.rawValue)], head.key.rawValue, class: "mono"))</td>"
                + "<td>\(state)</td><td class=\"n\">\(waiting)</td></tr>"
        }
        return body + "</table>"
    }
}
#endif
