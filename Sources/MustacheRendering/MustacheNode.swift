/// One piece of a parsed template.
enum MustacheNode: Sendable {
    /// Text copied as it is.
    case text(String)
    /// `{{name}}` (`escaped` unless the content type is TEXT) or `{{{name}}}` / `{{&name}}` (never escaped).
    case variable(name: String, escaped: Bool)
    /// `{{#name}}…{{/name}}`, or `{{^name}}…{{/name}}` when `inverted`.
    case section(name: String, inverted: Bool, body: [MustacheNode])
}
