#if SignalsDashboard
import Foundation
import HandlerKitSignals

extension Dashboard {
    /// The registered consumers, filtered by component, signal and handler id.
    func consumers(_ parameters: Parameters) async throws -> Page {
        let component = parameters["component"]
        let signal = parameters["signal"]
        let handler = parameters["handler"]
        let found = try await reader.consumers(component: component, signalID: signal, handlerID: handler)
        var body = "<form class=\"filters\" method=\"get\" action=\"/consumers\">"
        for (name, label, value) in [
            ("component", "component", component), ("signal", "signal id", signal), ("handler", "handler id", handler),
        ] {
            body += "<label>\(label)<input name=\"\(name)\" value=\"\(HTML.escape(value ?? ""))\" size=\"14\"></label>"
        }
        body +=
            "<button type=\"submit\">Filter</button> " + HTML.link("/consumers", [], "clear", class: "button secondary")
        body += "</form><p id=\"shown\">\(HTML.count(found.count, "consumer", "consumers")).</p>"
        if !found.isEmpty {
            body += "<table id=\"consumers\"><tr><th>consumer</th><th>component</th><th>signal</th><th>handler</th>"
            body += "<th>mode</th><th>lifetime</th><th>run</th></tr>"
            for consumer in found {
                body +=
                    "<tr><td class=\"mono\">"
                    + HTML.link("/deliveries", [("consumer", consumer.id.rawValue)], consumer.id.rawValue)
                    + "</td><td>\(HTML.escape(consumer.component))</td><td>\(HTML.escape(consumer.signalID))</td>"
                    + "<td class=\"mono\">\(HTML.escape(consumer.handlerID))</td>"
                    + "<td>\(consumer.mode == .once ? "once" : "every revision")</td>"
                    + "<td>\(consumer.lifetime.rawValue)</td><td class=\"mono\">\(HTML.escape(consumer.runID))</td></tr>"
            }
            body += "</table>"
        }
        return Page(title: "Consumers", section: .consumers, body: HTML(body))
    }
}
#endif
