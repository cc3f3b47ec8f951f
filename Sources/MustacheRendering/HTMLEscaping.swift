/// Text made safe to place in HTML, between tags or in a quoted attribute: what `{{name}}` writes, and
/// what the signal dashboard writes of a store's values.
package enum HTMLEscaping {
    /// `text` with `&`, `<`, `>`, `"` and `'` as entities.
    package static func escaped(_ text: some StringProtocol) -> String {
        guard text.utf8.contains(where: { $0 == 0x3C || $0 == 0x3E || $0 == 0x26 || $0 == 0x22 || $0 == 0x27 }) else {
            return String(text)
        }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "&": escaped += "&amp;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
