/// A bound value as it is stored in a handler's JSON: a JSON value that keeps numbers exactly.
///
/// Numbers keep the text they were written with, so every integer width (including `Int64.min`
/// and `UInt64.max`) and every `Double`/`Float` (including `-0.0` and subnormals) reads back exactly:
/// nothing takes a detour through `Double`. `true` and `1` are different values and never confused.
/// Non-finite floating-point values are stored as the strings `"NaN"`, `"Infinity"`, `"-Infinity"`.
public enum HandlerValue: Sendable, Hashable {
    /// JSON `null`: an absent optional.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A JSON number, as its exact JSON text (e.g. `-9223372036854775808`, `5e-324`, `-0.0`).
    case number(String)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([HandlerValue])
    /// An object: its members by name (written sorted by name).
    case object([String: HandlerValue])

    /// A short description of the kind of value, for error messages: `number 1.5`, `bool true`, …
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool(let value): "bool \(value)"
        case .number(let text): "number \(text)"
        case .string(let text):
            text.utf8.count <= 40 ? "string \"\(text)\"" : "string of \(text.count) characters"
        case .array(let elements): "array of \(elements.count) elements"
        case .object(let members): "object with \(members.count) members"
        }
    }
}
