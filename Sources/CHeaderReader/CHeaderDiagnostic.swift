/// A problem found while reading C headers: a header that does not parse (from libclang's own
/// diagnostics), or a type HandlerKit cannot convert (a union, a pointer that is not a string, …).
public struct CHeaderDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious the problem is.
    public enum Severity: String, Sendable, Hashable {
        case error
        case warning
        case note
    }

    public var severity: Severity
    /// What is wrong, in one sentence.
    public var message: String
    /// Where, when known.
    public var location: CSourceLocation?
    /// The C type concerned (for unsupported types), as Swift names it.
    public var typeName: String?
    /// The field concerned, when the problem is one field (`inner.payload` for a field of an
    /// anonymous nested struct).
    public var fieldName: String?

    public init(severity: Severity, message: String, location: CSourceLocation? = nil,
                typeName: String? = nil, fieldName: String? = nil) {
        self.severity = severity
        self.message = message
        self.location = location
        self.typeName = typeName
        self.fieldName = fieldName
    }

    /// The compiler form, `path:line:column: error: message`.
    public var description: String {
        let prefix = location.map { "\($0): " } ?? ""
        return "\(prefix)\(severity.rawValue): \(message)"
    }
}
