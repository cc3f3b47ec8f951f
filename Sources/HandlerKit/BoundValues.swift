/// A handler's bound values, kept as a small array: handlers bind a handful of values, and a
/// linear scan over short names is faster than hashing them on every call.
@usableFromInline
struct BoundValues: Sendable {
    /// Unique names, in no particular order.
    @usableFromInline
    private(set) var entries: [(name: String, value: HandlerValue)]

    init(_ values: [String: HandlerValue]) {
        entries = values.map { (name: $0.key, value: $0.value) }
    }

    /// The value bound to `name`, if any (possibly `.null`).
    @inlinable
    func value(named name: String) -> HandlerValue? {
        for entry in entries where entry.name == name { return entry.value }
        return nil
    }

    var dictionary: [String: HandlerValue] {
        Dictionary(entries, uniquingKeysWith: { _, last in last })
    }

    var names: [String] { entries.map(\.name) }

    /// Adds `values`, replacing values of the same names.
    mutating func merge(_ values: [String: HandlerValue]) {
        for (name, value) in values {
            if let position = entries.firstIndex(where: { $0.name == name }) {
                entries[position].value = value
            } else {
                entries.append((name, value))
            }
        }
    }
}
