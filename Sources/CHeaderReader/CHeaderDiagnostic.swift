/// A problem found while reading C headers: a header that does not parse (from libclang's own
/// diagnostics), or a type HandlerKit cannot convert (a union, a pointer that is not a string, …).
package struct CHeaderDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious the problem is.
    package enum Severity: String, Sendable, Hashable {
        case error
        case warning
        case note
    }

    package var severity: Severity
    /// What is wrong, in one sentence.
    package var message: String
    /// Where, when known.
    package var location: CSourceLocation?
    /// The C type concerned (for unsupported types), as Swift names it.
    package var typeName: String?
    /// The field concerned, when the problem is one field (`inner.payload` for a field of an
    /// anonymous nested struct).
    package var fieldName: String?

    package init(
        severity: Severity, message: String, location: CSourceLocation? = nil,
        typeName: String? = nil, fieldName: String? = nil
    ) {
        self.severity = severity
        self.message = message
        self.location = location
        self.typeName = typeName
        self.fieldName = fieldName
    }

    /// The compiler form, `path:line:column: error: message`.
    package var description: String {
        let prefix = location.map { "\($0): " } ?? ""
        return "\(prefix)\(severity.rawValue): \(message)"
    }
}
