/// The result of reading C headers for a set of type names.
package struct CHeaderModel: Sendable, Hashable {
    /// The declarations found: the requested types and every named struct or enum they use, sorted by
    /// name. A type that cannot be converted is absent here and explained in ``diagnostics``.
    package var declarations: [CDeclaration]
    /// For each requested name that was found, the name of its declaration. The two differ only for a
    /// typedef of a tagged type (`typedef struct HKPoint_ {…} HKPoint;` maps `HKPoint` to `HKPoint_`).
    package var resolvedNames: [String: String]
    /// Requested names that the headers do not declare as a struct or enum (sorted). These are not C
    /// types for HandlerKit's purposes; typedefs of scalars (`typedef int32_t HKCount;`) are here too.
    package var notFound: [String]
    /// Parse errors and unsupported types, sorted by location. Any `.error` means the headers or some
    /// requested type cannot be used.
    package var diagnostics: [CHeaderDiagnostic]
    /// The libclang that read the headers, or nil when none was needed (no requested name occurs in
    /// the headers, so libclang was never loaded).
    package var libclang: LibClangInfo?

    package init(
        declarations: [CDeclaration] = [], resolvedNames: [String: String] = [:],
        notFound: [String] = [], diagnostics: [CHeaderDiagnostic] = [],
        libclang: LibClangInfo? = nil
    ) {
        self.declarations = declarations
        self.resolvedNames = resolvedNames
        self.notFound = notFound
        self.diagnostics = diagnostics
        self.libclang = libclang
    }

    /// Whether any diagnostic is an error.
    package var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// The declaration for a requested name or a declaration name.
    package func declaration(named name: String) -> CDeclaration? {
        let target = resolvedNames[name] ?? name
        return declarations.first { $0.name == target }
    }

    /// The struct for a requested name or a declaration name.
    package func structure(named name: String) -> CStruct? {
        if case .structure(let value)? = declaration(named: name) { return value }
        return nil
    }

    /// The enum for a requested name or a declaration name.
    package func enumeration(named name: String) -> CEnum? {
        if case .enumeration(let value)? = declaration(named: name) { return value }
        return nil
    }
}

/// Which libclang was used.
package struct LibClangInfo: Sendable, Hashable {
    /// The path it was loaded from.
    package var path: String
    /// Its version string, e.g. `clang version 21.0.0 …` or `Debian clang version 14.0.6`.
    package var version: String

    package init(path: String, version: String) {
        self.path = path
        self.version = version
    }
}
