#if SignalsDashboard
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection

extension Dashboard {
    /// One delivery: where it is, its attempts and last error, its handler document and payload.
    func delivery(_ parameters: Parameters, now: Date) async throws -> Page {
        let key = try DeliveryQuery.key(try parameters.required("key"))
        guard let delivery = try await reader.delivery(key) else {
            return .problem(
                .notFound, "No such delivery",
                "There is no delivery '\(key)' in the store: it was completed or discarded, or never made.")
        }
        var body = "<dl class=\"fields\" id=\"delivery\">" + Self.fields(of: delivery, now: now) + "</dl>"
        body += "<p>"
        if delivery.state == .dead {
            body += HTML.link("/requeue", [("key", key.rawValue)], "Requeue…", class: "button") + " "
        }
        if delivery.state != .claimed {
            body += HTML.link("/discard", [("key", key.rawValue)], "Discard…", class: "button secondary") + " "
        }
        body += HTML.link("/deliveries", [("consumer", delivery.consumerID.rawValue)], "Deliveries of this consumer")
        body += "</p>"
        body += "<h2>Payload</h2><pre id=\"payload\">"
        body += HTML.escape(delivery.payload.map(JSONIndentation.indent) ?? "(none stored)") + "</pre>"
        body += "<h2>Handler document</h2><pre id=\"handler\">"
        body += HTML.escape(delivery.handler.map(JSONIndentation.indent) ?? "(none stored)") + "</pre>"
        return Page(title: "Delivery \(key)", section: .deliveries, body: HTML(body))
    }

    /// A delivery's fields, as `<dt>`/`<dd>` pairs.
    static func fields(of delivery: DeliveryRecord, now: Date) -> String {
        var claim = "—"
        if let claimedBy = delivery.claimedBy {
            claim = "run <span class=\"mono\">\(HTML.escape(claimedBy))</span>"
            if let claimedAt = delivery.claimedAt { claim += ", since \(HTML.ago(claimedAt, now: now))" }
            claim += delivery.started ? "; its handler started" : "; its handler not started yet"
        }
        let rows: [(String, String)] = [
            ("key", "<span class=\"mono\">\(HTML.escape(delivery.key.rawValue))</span>"),
            (
                "state",
                "<span id=\"state\" class=\"\(delivery.state == .dead ? "dead" : "")\">"
                    + "\(delivery.filterState.rawValue)</span>"
            ),
            ("consumer", "<span class=\"mono\">\(HTML.escape(delivery.consumerID.rawValue))</span>"),
            ("component", HTML.escape(delivery.component)),
            ("lifetime", delivery.lifetime.rawValue),
            ("handler id", "<span class=\"mono\">\(HTML.escape(delivery.handlerID))</span>"),
            ("signal", "\(HTML.escape(delivery.signalID)), revision \(delivery.revision)"),
            ("owner run", "<span class=\"mono\">\(HTML.escape(delivery.ownerRun))</span>"),
            ("claimed by", claim),
            (
                "attempts",
                "<span id=\"attempts\">\(delivery.attempts)</span>"
                    + (delivery.previousAttemptCrashed ? " (the previous one crashed its process)" : "")
            ),
            ("last error", "<span id=\"last-error\">\(HTML.escape(delivery.lastError ?? "none"))</span>"),
            ("due", "\(HTML.ago(delivery.dueAt, now: now)) (\(HTML.time(delivery.dueAt)))"),
            ("made", "\(HTML.ago(delivery.madeAt, now: now)) (\(HTML.time(delivery.madeAt)))"),
        ]
        var keys: [(String, String)] = []
        if let key = delivery.orderingKey {
            let link = HTML.link(
                "/deliveries", [("consumer", delivery.consumerID.rawValue), ("ordering-key", key)], key, class: "mono")
            keys.append(
                (
                    "ordering key",
                    "<span id=\"ordering-key\">\(link)</span> (its deliveries run one at a time, in order)"
                ))
        }
        if let key = delivery.debounceKey {
            keys.append(
                (
                    "debounce key",
                    "<span class=\"mono\" id=\"debounce-key\">\(HTML.escape(key))</span> (posts with it collapse into "
                        + "this delivery until it is claimed)"
                ))
        }
        return (rows + keys).map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined()
    }
}
#endif
