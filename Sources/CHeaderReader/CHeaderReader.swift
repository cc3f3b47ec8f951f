import Foundation

/// Reads C structs and enums from headers with libclang, for HandlerKit's JSON conversions of C types.
///
/// ```swift
/// let reader = CHeaderReader()                       // or CHeaderReader(libclangPath: "/path/libclang.so")
/// let sources = try CHeaderSources.module(includeDirectories: ["Sources/CPoint/include"])
/// let model = try reader.read(types: ["HKPoint", "HKColor"], from: sources)
/// for diagnostic in model.diagnostics { print(diagnostic) }   // path:line:col: error: …
/// if let point = model.structure(named: "HKPoint") { … }
/// ```
///
/// libclang is located (see ``LibClangLocator``) and loaded only when a requested name occurs in the
/// headers; once loaded it stays loaded and is shared by every reader in the process. Reading is
/// thread-safe: each call parses on its own.
package struct CHeaderReader: Sendable {
    /// Where libclang is looked for.
    package var locator: LibClangLocator

    /// - Parameters:
    ///   - libclangPath: An explicit libclang (file, or directory containing it); when given, the only
    ///     one tried.
    ///   - environment: The environment consulted for `HANDLERKIT_LIBCLANG` and `PATH`.
    package init(
        libclangPath: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        locator = LibClangLocator(explicitPath: libclangPath, environment: environment)
    }

    package init(locator: LibClangLocator) {
        self.locator = locator
    }

    /// Loads libclang now (if not loaded yet) and tells which one it is.
    /// - Throws: ``CHeaderReaderError/libclangNotFound(tried:installHint:)``.
    package func libclang() throws(CHeaderReaderError) -> LibClangInfo {
        try LibClang.load(from: locator).info
    }

    /// Reads the named types from the headers.
    ///
    /// - Parameters:
    ///   - names: C type names as a Swift parameter would spell them (`HKPoint`, `HKColor`).
    ///   - sources: The headers and their preprocessor settings.
    /// - Returns: The declarations of the named types and of the types they use, the names that are not
    ///   C structs or enums, and diagnostics (parse errors with file and line, unsupported types).
    /// - Throws: ``CHeaderReaderError`` when a header or include directory is missing, libclang cannot
    ///   be found, or libclang fails outright.
    package func read(
        types names: some Sequence<String>,
        from sources: CHeaderSources
    ) throws(CHeaderReaderError) -> CHeaderModel {
        let sources = try Self.normalized(sources)
        let requested = Set(names)
        let mentioned = HeaderMentions.names(requested, mentionedIn: HeaderMentions.files(of: sources))
        var model = CHeaderModel(notFound: requested.subtracting(mentioned).sorted())
        guard !mentioned.isEmpty, !sources.headers.isEmpty else {
            model.notFound = requested.sorted()
            return model
        }

        let library = try LibClang.load(from: locator)
        model.libclang = library.info
        let unit = try TranslationUnit(clang: Clang(library: library), sources: sources)
        var builder = TypeModelBuilder(index: DeclarationIndex(unit: unit), clang: unit.clang)
        var notFound = Set(model.notFound)
        for name in mentioned.sorted() {
            switch builder.resolve(name) {
            case .found(let declarationName):
                model.resolvedNames[name] = declarationName
            case .notFound:
                notFound.insert(name)
            case .unsupported:
                continue
            }
        }
        model.notFound = notFound.sorted()
        model.declarations = builder.declarations.values.sorted { $0.name < $1.name }
        let needed = requested.subtracting(notFound).sorted()
        model.diagnostics = Self.sorted(
            Self.parseErrors(unit.errors(), neededBy: needed, in: model) + builder.diagnostics)
        return model
    }

    /// libclang's errors for the headers, as far as they matter: none when the headers declare none of
    /// the requested types (a C dependency's headers that do not parse on their own concern its C
    /// compiler, not HandlerKit), else each error naming the types read from those headers.
    static func parseErrors(
        _ errors: [CHeaderDiagnostic], neededBy needed: [String], in model: CHeaderModel
    ) -> [CHeaderDiagnostic] {
        guard !needed.isEmpty else { return [] }
        let types = needed.map { name in
            let file = model.declaration(named: name)?.location?.file
            return file.map { "'\(name)' (declared in \($0))" } ?? "'\(name)'"
        }
        let subject = types.count == 1 ? "a handler's parameter type" : "handlers' parameter types"
        return errors.map { error in
            var diagnostic = error
            diagnostic.message =
                "libclang cannot parse this header, and \(subject) \(types.joined(separator: ", ")) "
                + "\(types.count == 1 ? "is" : "are") read from the headers it belongs to: \(error.message). "
                + "Make the headers parse as a C module on their own (their includes and defines), "
                + "or give the handler a Swift type instead."
            return diagnostic
        }
    }

    /// Reads the named types from the headers of several C modules, each parsed on its own (so that
    /// one module's headers cannot break another's) and only when its headers mention a requested
    /// name. Every directory is on the include path of every module, as a target's dependencies are.
    ///
    /// - Parameter includeDirectories: The public header directories of the modules, one per module.
    /// - Returns: The modules' models merged: each name is resolved by the first module (in the order
    ///   given) that declares it; a name is not found when no module declares it.
    /// - Throws: ``CHeaderReaderError`` as ``read(types:from:)`` does, for the first module that fails.
    package func read(
        types names: some Sequence<String>,
        fromModules includeDirectories: [String]
    ) throws(CHeaderReaderError) -> CHeaderModel {
        let requested = Set(names)
        var merged = CHeaderModel(notFound: requested.sorted())
        var remaining = requested
        for directory in includeDirectories where !remaining.isEmpty {
            var sources = try CHeaderSources.module(includeDirectories: [directory])
            sources.includeDirectories += includeDirectories.filter { $0 != directory }
            let mentioned = HeaderMentions.names(remaining, mentionedIn: sources.headers)
            guard !mentioned.isEmpty else { continue }
            let model = try read(types: mentioned, from: sources)
            let declared = mentioned.subtracting(model.notFound)
            remaining.subtract(declared)
            merged.libclang = merged.libclang ?? model.libclang
            merged.resolvedNames.merge(model.resolvedNames) { first, _ in first }
            let known = Set(merged.declarations.map(\.name))
            merged.declarations += model.declarations.filter { !known.contains($0.name) }
            merged.diagnostics += model.diagnostics
        }
        merged.notFound = remaining.sorted()
        merged.declarations.sort { $0.name < $1.name }
        merged.diagnostics = Self.sorted(merged.diagnostics)
        return merged
    }

    /// Absolute paths, sorted and unique headers; missing files and directories are errors.
    static func normalized(_ sources: CHeaderSources) throws(CHeaderReaderError) -> CHeaderSources {
        var result = sources
        result.headers = Array(Set(sources.headers.map(FileSystem.absolute))).sorted()
        for header in result.headers where !FileSystem.isFile(header) {
            throw .headerNotFound(header)
        }
        result.includeDirectories = sources.includeDirectories.map(FileSystem.absolute)
        for directory in result.includeDirectories where !FileSystem.isDirectory(directory) {
            throw .includeDirectoryNotFound(directory)
        }
        return result
    }

    /// Diagnostics by file, line, column and message, without duplicates; those without a location last.
    static func sorted(_ diagnostics: [CHeaderDiagnostic]) -> [CHeaderDiagnostic] {
        var seen: Set<CHeaderDiagnostic> = []
        return diagnostics.filter { seen.insert($0).inserted }.sorted { a, b in
            switch (a.location, b.location) {
            case (let x?, let y?):
                if x.file != y.file { return x.file < y.file }
                if x.line != y.line { return x.line < y.line }
                if x.column != y.column { return x.column < y.column }
                return a.message < b.message
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.message < b.message
            }
        }
    }
}
