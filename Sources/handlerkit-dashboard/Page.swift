#if SignalsDashboard
import HTTPTypes
import Hummingbird

/// A whole page: the title, the navigation, the body, and the status it is sent with.
struct Page: Sendable {
    var status: HTTPResponse.Status = .ok
    var title: String
    /// Which entry of the navigation is current.
    var section: Section?
    var body: HTML

    /// The entries of the navigation.
    enum Section: String, Sendable, CaseIterable {
        case overview = "Overview"
        case deliveries = "Deliveries"
        case dead = "Dead letters"
        case consumers = "Consumers"

        var path: String {
            switch self {
            case .overview: "/"
            case .deliveries: "/deliveries"
            case .dead: "/dead"
            case .consumers: "/consumers"
            }
        }
    }

    /// A page saying what was wrong with a request, sent with `status`: nothing was changed.
    static func problem(_ status: HTTPResponse.Status, _ title: String, _ message: String) -> Page {
        Page(
            status: status, title: title, section: nil,
            body: HTML(
                """
                <p class="problem" id="problem">\(HTML.escape(message))</p>
                <p>\(HTML.link("/", [], "Back to the overview"))</p>
                """))
    }

    /// The page's HTML, with the store's location and whether actions are enabled in the header.
    func render(location: String, actionsEnabled: Bool) -> String {
        let navigation = Section.allCases.map { entry in
            entry == section
                ? "<a href=\"\(entry.path)\" aria-current=\"page\">\(entry.rawValue)</a>"
                : "<a href=\"\(entry.path)\">\(entry.rawValue)</a>"
        }.joined(separator: " ")
        let actions =
            actionsEnabled
            ? "actions enabled (token required)"
            : "read-only: actions disabled (start with --token or HANDLERKIT_DASHBOARD_TOKEN to enable them)"
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <link rel="icon" href="data:,">
            <title>\(HTML.escape(title)) · HandlerKit signals</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            <header>
            <strong>HandlerKit signals</strong>
            <span class="store" title="the store">\(HTML.escape(location))</span>
            <nav>\(navigation)</nav>
            </header>
            <main>
            <h1>\(HTML.escape(title))</h1>
            \(body.text)
            </main>
            <footer id="actions-state">\(actions)</footer>
            </body>
            </html>
            """
    }

    /// The style of every page: system fonts, compact tables, fits a laptop's screen.
    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
        header{display:flex;gap:1.5em;align-items:baseline;padding:.6em 1.5em;background:#1d3557;color:#fff}
        header a{color:#dbe7f5;text-decoration:none;margin-right:1em}
        header a[aria-current]{color:#fff;font-weight:600;border-bottom:2px solid #fff}
        .store{font-family:ui-monospace,monospace;font-size:12px;opacity:.85}
        main{padding:.5em 1.5em 2em;max-width:1400px}
        h1{font-size:20px;margin:.6em 0}
        h2{font-size:16px;margin:1.4em 0 .4em}
        table{border-collapse:collapse;background:#fff;margin:.3em 0}
        th,td{border:1px solid #d5dae0;padding:3px 8px;text-align:left;vertical-align:top}
        th{background:#eef1f4;font-weight:600}
        td.n{text-align:right;font-variant-numeric:tabular-nums}
        code,pre,.mono{font-family:ui-monospace,monospace;font-size:12px}
        td.mono,td time{white-space:nowrap}
        pre{background:#fff;border:1px solid #d5dae0;padding:.6em;overflow:auto;max-height:24em;margin:.3em 0}
        .cards{display:flex;flex-wrap:wrap;gap:.6em;margin:.5em 0}
        .card{background:#fff;border:1px solid #d5dae0;padding:.4em .9em;min-width:8em}
        .card b{display:block;font-size:20px}
        .dead{color:#b00020}.alive{color:#176d2c}.gone{color:#8a5a00}
        .problem{background:#fdecea;border:1px solid #f5c2c0;padding:.6em}
        .note{background:#fff8e1;border:1px solid #f0dc9a;padding:.4em .8em}
        .done{background:#e8f5e9;border:1px solid #a5d6a7;padding:.6em}
        form.filters{display:flex;flex-wrap:wrap;gap:.6em;align-items:end;margin:.4em 0}
        form.filters label{display:flex;flex-direction:column;font-size:12px}
        a.button,button{display:inline-block;padding:.3em .9em;border:1px solid #1d3557;background:#1d3557;
        color:#fff;text-decoration:none;border-radius:3px;font:inherit;cursor:pointer}
        a.button.secondary{background:#fff;color:#1d3557}
        dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:.3em 0}
        dl.fields dt{font-weight:600}dl.fields dd{margin:0}
        footer{padding:.5em 1.5em;color:#555;font-size:12px}
        svg text{font:11px system-ui,sans-serif;fill:#444}
        """
}
#endif
