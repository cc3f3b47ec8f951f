#if SignalsDashboard
import Foundation
import MustacheRendering
import SignalStoreOpening

/// HTML text, escaped where it comes from outside (the store, the request).
struct HTML: Sendable {
    /// The markup.
    var text: String

    init(_ markup: String) {
        text = markup
    }

    /// `value` as text in HTML, between tags or in a quoted attribute: `&`, `<`, `>`, `"` and `'`
    /// become entities.
    static func escape(_ value: some StringProtocol) -> String {
        HTMLEscaping.escaped(value)
    }

    /// A link to `path` with `query` (each value percent-encoded) and the escaped `label`.
    static func link(
        _ path: String, _ query: [(String, String)] = [], _ label: String, class name: String? = nil
    )
        -> String
    {
        let attribute = name.map { " class=\"\($0)\"" } ?? ""
        return "<a href=\"\(escape(url(path, query)))\"\(attribute)>\(escape(label))</a>"
    }

    /// `path` with `query`, percent-encoded.
    static func url(_ path: String, _ query: [(String, String)]) -> String {
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }

    /// `value` percent-encoded for a query string (everything but letters, digits and `-._~`).
    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<"\u{80}"))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// `date` in UTC, to the second (`2026-11-26 18:00:09 UTC`).
    static func time(_ date: Date) -> String {
        let text = date.formatted(.iso8601)
        return text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }

    /// How long ago `date` was: `42s ago`, `5m ago`, `3h ago`, `2d ago` (or `in 5m`).
    static func age(_ date: Date, now: Date) -> String {
        Age.text(since: date, now: now)
    }

    /// A `<time>` element: the age, with the time in UTC as its title.
    static func ago(_ date: Date, now: Date) -> String {
        "<time title=\"\(time(date))\">\(age(date, now: now))</time>"
    }

    /// `count` and `noun`, plural when it is not one (`1 delivery`, `2 deliveries`).
    static func count(_ count: Int, _ singular: String, _ plural: String) -> String {
        "\(count) \(count == 1 ? singular : plural)"
    }
}
#endif
