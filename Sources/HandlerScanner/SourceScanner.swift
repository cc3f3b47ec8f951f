import Dispatch

/// Where a declaration sits, for `SourceScanner.scanDeclaration(_:file:line:column:context:)` (the compiler
/// plugin knows this from the macro expansion's lexical context).
public enum DeclarationContext: Sendable, Hashable {
    /// At file scope: a global function.
    case fileScope
    /// A member of a type or extension. `path` is the dotted type path as written (an extension's
    /// target as written); `isProtocol` when the type is a protocol.
    case type(path: String, isProtocol: Bool)
    /// Inside a function, closure or accessor body.
    case local
}

/// Finds `@handler` functions in Swift source by lexical scanning (no parser, no dependencies).
///
/// Results are ordered by file, then line (then column). A declaration with an error is reported as a
/// diagnostic only; declarations whose only problem is a duplicate id are reported as handlers too.
public enum SourceScanner {
    /// Scans one file's text.
    ///
    /// - Parameters:
    ///   - source: the file's contents.
    ///   - file: the name used verbatim in results.
    /// - Returns: the handlers found and the diagnostics, including duplicate ids within this text.
    public static func scan(source: String, file: String) -> ScanResult {
        var text = source
        return text.withUTF8 { buffer in
            var result = scanFile(buffer, file: file, validateUTF8: false)
            appendModuleChecks(to: &result, fileOrder: [file: 0])
            return result
        }
    }

    /// Scans one file's raw bytes. Invalid UTF-8 or binary content (NUL bytes) gives an error diagnostic
    /// at the offending position; it never traps.
    ///
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - file: the name used verbatim in results.
    public static func scan(bytes: [UInt8], file: String) -> ScanResult {
        bytes.withUnsafeBufferPointer { buffer in
            var result = scanFile(buffer, file: file, validateUTF8: true)
            appendModuleChecks(to: &result, fileOrder: [file: 0])
            return result
        }
    }

    /// Scans files and directories as one module.
    ///
    /// Directories are searched recursively for `.swift` files (hidden files and folders such as `.build`
    /// are skipped); files given directly are scanned whatever their name. Files are scanned in sorted
    /// path order, so the output is deterministic. A path that does not exist or cannot be read gives a
    /// diagnostic. Duplicate ids across all files are reported at every declaration involved.
    ///
    /// - Parameters:
    ///   - paths: files and directories.
    ///   - relativeTo: when given, `file` in results is relative to this directory (for paths inside it).
    public static func scan(paths: [String], relativeTo: String?) -> ScanResult {
        var result = ScanResult()
        var fileOrder: [String: Int] = [:]
        let currentDirectory = FileSystem.currentDirectory()
        let base = relativeTo.flatMap { $0.isEmpty ? nil : PathName.normalized($0, in: currentDirectory) }
        let namer = FileWalker.Namer(base: base)
        // The build plugin names every file of a target: `.swift` paths are first taken for files without
        // asking the file system (opening them tells). Should one be missing or a directory, the paths
        // are classified again, each asked, so the outcome is the same either way.
        var entries = FileWalker.files(in: paths, currentDirectory: currentDirectory, trustingSwiftNames: true)
        var names = entries.map(namer.name(of:))
        var scanned = scanFiles(entries, names: names)
        if scanned.contains(where: { if case .notAFile = $0 { true } else { false } }) {
            entries = FileWalker.files(in: paths, currentDirectory: currentDirectory, trustingSwiftNames: false)
            names = entries.map(namer.name(of:))
            scanned = scanFiles(entries, names: names)
        }
        for index in entries.indices {
            let name = names[index]
            if fileOrder[name] == nil { fileOrder[name] = fileOrder.count }
            switch scanned[index] {
            case .missing, .notAFile:
                result.diagnostics.append(fileDiagnostic(name, Diagnostics.unreadable("no such file or directory")))
            case .unreadable(let failure):
                result.diagnostics.append(fileDiagnostic(name, Diagnostics.unreadable(failure.reason)))
            case .scanned(let fileResult):
                result.handlers.append(contentsOf: fileResult.handlers)
                result.diagnostics.append(contentsOf: fileResult.diagnostics)
                result.imports.append(contentsOf: fileResult.imports)
                result.declaredTypeNames.formUnion(fileResult.declaredTypeNames)
            }
        }
        appendModuleChecks(to: &result, fileOrder: fileOrder)
        return result
    }

    /// Validates one declaration for the compiler plugin: `text` is the declaration `@handler` is attached
    /// to, as the compiler sends it, starting at its attributes (leading comments are fine).
    ///
    /// - Parameters:
    ///   - text: the declaration's source text.
    ///   - file: the user's file, used verbatim in results.
    ///   - line: the 1-based line in the user's file of the first character of `text`.
    ///   - column: the 1-based UTF-8 column of that character.
    ///   - context: where the declaration sits (file scope, type member, or local).
    /// - Returns: the handler (when valid) and diagnostics whose positions point into the user's file.
    ///   Duplicate ids cannot be seen from one declaration and are not checked.
    public static func scanDeclaration(
        _ text: String, file: String, line: Int, column: Int, context: DeclarationContext
    ) -> ScanResult {
        var source = text
        return source.withUTF8 { buffer in
            let lines = LineTable(bytes: buffer, baseLine: line, baseColumn: column)
            var lexer = Lexer(bytes: buffer)
            while true {
                let token = lexer.next()
                if token.kind == .endOfFile {
                    return ScanResult(diagnostics: [
                        ScanDiagnostic(
                            file: file, line: line, column: column, severity: .error,
                            message: Diagnostics.noHandlerAttribute)
                    ])
                }
                guard token.kind == .at else { continue }
                var lookahead = lexer
                var name = lookahead.next()
                guard name.kind == .identifier, name.start == token.end else { continue }
                if lookahead.token(name, is: "HandlerKit"), lookahead.next().kind == .dot {
                    name = lookahead.next()
                }
                guard name.kind == .identifier, lookahead.token(name, is: "handler") else { continue }
                var parser = DeclarationParser(lexer: lookahead, lines: lines, file: file)
                let site = HandlerSite(context: context, inPrivateScope: false, conditions: [])
                let parsed = parser.parse(attributeStart: token.start, handlerEnd: name.end, site: site)
                return ScanResult(handlers: parsed.declaration.map { [$0] } ?? [], diagnostics: parsed.diagnostics)
            }
        }
    }

    // MARK: - Internals

    /// What reading and scanning one entry gave.
    private enum FileOutcome {
        case scanned(ScanResult)
        case unreadable(FileSystem.ReadFailure)
        case missing
        /// A path taken for a file without asking (`FileWalker.Entry.isVerified`) is missing or a
        /// directory.
        case notAFile
    }

    /// Reads and scans the files among `entries`, on one thread per processor when there are enough
    /// files to pay for the threads: a large target's generation step is on its build's critical path.
    /// Each result lands at its entry's index, so the outcome does not depend on which thread finished
    /// first.
    private static func scanFiles(_ entries: [FileWalker.Entry], names: [String]) -> [FileOutcome] {
        var results = [FileOutcome](repeating: .missing, count: entries.count)
        let workers = entries.count >= 64 ? min(FileSystem.processorCount(), 8) : 1
        results.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let slots = ResultSlots(base: base)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var reader = FileReader()
                for index in stride(from: worker, to: entries.count, by: workers) where entries[index].isFile {
                    let entry = entries[index]
                    let read = reader.withContents(of: entry.path) { bytes in
                        scanFile(bytes, file: names[index], validateUTF8: true)
                    }
                    switch read {
                    case .success(let result):
                        slots.base[index] = .scanned(result)
                    case .failure(let failure):
                        // Unverified, it may be no file at all (a directory fails to read, too).
                        let isFile = entry.isVerified || FileSystem.kind(of: entry.path) == .other
                        slots.base[index] = isFile ? .unreadable(failure) : .notAFile
                    }
                }
            }
        }
        return results
    }

    /// The result array's storage, shared by the scanning threads: each writes only the slots of its own
    /// indices, and the array is read only after all of them have finished.
    private struct ResultSlots: @unchecked Sendable {
        let base: UnsafeMutablePointer<FileOutcome>
    }

    /// Scans one file's bytes (validating them first when asked).
    static func scanFile(_ buffer: UnsafeBufferPointer<UInt8>, file: String, validateUTF8: Bool) -> ScanResult {
        let lines = LineTable(bytes: buffer)
        if let problem = UTF8Validation.firstProblem(in: buffer), validateUTF8 || isNul(problem) {
            switch problem {
            case .nul(let offset):
                let position = lines.position(of: offset)
                return ScanResult(diagnostics: [
                    ScanDiagnostic(
                        file: file, line: position.line, column: position.column, severity: .error,
                        message: Diagnostics.binary)
                ])
            case .invalid(let offset):
                let position = lines.position(of: offset)
                return ScanResult(diagnostics: [
                    ScanDiagnostic(
                        file: file, line: position.line, column: position.column, severity: .error,
                        message: Diagnostics.notUTF8)
                ])
            }
        }
        var scanner = FileScanner(bytes: buffer, file: file, lines: lines)
        scanner.run()
        var result = ScanResult(handlers: scanner.handlers, diagnostics: scanner.diagnostics, imports: scanner.imports)
        result.declaredTypeNames = scanner.declaredTypeNames
        return result
    }

    private static func isNul(_ problem: UTF8Validation.Problem) -> Bool {
        if case .nul = problem { return true }
        return false
    }

    private static func fileDiagnostic(_ file: String, _ message: String) -> ScanDiagnostic {
        ScanDiagnostic(file: file, line: 1, column: 1, severity: .error, message: message)
    }

    /// Adds duplicate-id errors and puts diagnostics in file, line, column order.
    private static func appendModuleChecks(to result: inout ScanResult, fileOrder: [String: Int]) {
        if result.handlers.count > 1 {
            result.diagnostics.append(contentsOf: ModuleChecks.duplicateIDs(in: result.handlers))
            result.diagnostics.append(contentsOf: ModuleChecks.formerIDCollisions(in: result.handlers))
        }
        guard result.diagnostics.count > 1 else { return }
        let order = fileOrder
        let indexed = result.diagnostics.enumerated().map { ($0.offset, $0.element) }
        result.diagnostics = indexed.sorted { left, right in
            let a = left.1
            let b = right.1
            let fileA = order[a.file] ?? Int.max
            let fileB = order[b.file] ?? Int.max
            if fileA != fileB { return fileA < fileB }
            if a.line != b.line { return a.line < b.line }
            if a.column != b.column { return a.column < b.column }
            return left.0 < right.0
        }.map(\.1)
    }
}
