import CHeaderReader
import HandlerScanner

/// The C structs and enums a module's handlers bind, as read from the headers of its C dependencies,
/// and the C modules the generated file imports for them.
///
/// For each declaration the generated file gets `extension <Type>: @retroactive Codable` with an
/// explicit `init(from:)` and `encode(to:)` (see `CConversionWriter` for the JSON form). A decoded
/// `const char *` points to a copy the runtime keeps for the life of the process (`CStringStorage`),
/// because a C struct value cannot own memory.
package struct CTypeConversions: Sendable {
    /// What the reader found for the handlers' parameter type names.
    package var model: CHeaderModel
    /// The C modules that declare the types, imported by the generated file (sorted, unique).
    package var imports: [String]

    package init(model: CHeaderModel = CHeaderModel(), imports: [String] = []) {
        self.model = model
        self.imports = Array(Set(imports)).sorted()
    }

    /// No C types: the generated file is exactly what it is without C headers.
    package static let none = CTypeConversions()

    /// Names that are never C types: the standard library's and Foundation's, which parameter types
    /// often spell. Not asking for them keeps libclang unloaded when a header merely mentions, say,
    /// `Data` in a comment or a macro, and keeps headers that libclang cannot read on their own (such
    /// as a TLS library's) out of the build.
    static let swiftNames: Set<String> = [
        // The standard library.
        "Any", "AnyHashable", "AnyObject", "Array", "ArraySlice", "Bool", "Character", "ClosedRange",
        "Codable", "ContiguousArray", "Decodable", "Dictionary", "Double", "Duration", "Encodable", "Error",
        "Float", "Float16", "Float80", "Handler", "Hashable", "Int", "Int8", "Int16", "Int32", "Int64",
        "Int128", "Never", "ObjectIdentifier", "Optional", "Range", "Result", "Sendable", "Set", "StaticString",
        "String", "Substring", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "UInt128", "Unicode", "Void",
        "some", "any", "inout", "Self",
        // Foundation.
        "AttributedString", "Calendar", "CGFloat", "CharacterSet", "Data", "Date", "DateComponents",
        "DateInterval", "Decimal", "IndexPath", "IndexSet", "Locale", "Measurement", "NSNumber",
        "PersonNameComponents", "TimeInterval", "TimeZone", "URL", "URLComponents", "URLQueryItem", "UUID",
    ]

    /// The names to look up in C headers for `scan`'s handlers: every identifier in a parameter type that
    /// is not a module qualifier (`CPoints.HKPoint` → `HKPoint`; `[HKPoint]?` and `Optional<HKColor>` give
    /// their element types), without the standard library's and Foundation's type names and those the
    /// scanned sources declare themselves. Sorted and unique.
    package static func candidateNames(in scan: ScanResult) -> [String] {
        var names: Set<String> = []
        for handler in scan.handlers {
            for parameter in handler.parameters {
                names.formUnion(identifiers(inType: parameter.type))
            }
        }
        return names.subtracting(swiftNames).subtracting(scan.declaredTypeNames).sorted()
    }

    /// The identifiers of a type as written, except those directly followed by `.` (qualifiers).
    static func identifiers(inType type: String) -> [String] {
        var result: [String] = []
        var current = ""
        for character in type + " " {
            if character == "_" || character.isLetter || (character.isNumber && !current.isEmpty) {
                current.append(character)
            } else if !current.isEmpty {
                if character != "." { result.append(current) }
                current = ""
            }
        }
        return result
    }

    /// Errors that keep a conversion from being generated: the reader's (headers that do not parse,
    /// unions, pointers other than `const char *`), each at its place in the header.
    func errors() -> [ScanDiagnostic] {
        var diagnostics: [ScanDiagnostic] = []
        for diagnostic in model.diagnostics where diagnostic.severity == .error {
            let message = diagnostic.typeName == nil ? "C header: \(diagnostic.message)" : diagnostic.message
            diagnostics.append(Self.scanDiagnostic(message, at: diagnostic.location))
        }
        return diagnostics
    }

    static func scanDiagnostic(_ message: String, at location: CSourceLocation?) -> ScanDiagnostic {
        ScanDiagnostic(
            file: location?.file ?? "<C headers>", line: location?.line ?? 1,
            column: location?.column ?? 1, severity: .error, message: message)
    }
}
