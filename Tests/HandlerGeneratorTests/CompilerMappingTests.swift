import Foundation
import HandlerGenerator
import HandlerScanner
import Testing

/// Compiles generated code with the real compiler (against a stub of the runtime's API, so the test
/// needs no build of HandlerKit) and checks that errors caused by the user's declaration are reported
/// at the user's file and line, and that valid input compiles without a warning.
@Suite struct CompilerMappingTests {
    /// The runtime API generated code calls (as in Sources/HandlerKit), with empty bodies.
    static let runtimeStub = """
        @_spi(HandlerKitGenerated) public struct HandlerArguments: Sendable {
            public func required<T>(_ name: String) throws -> T { throw Stub() }
            public func required<T: Decodable>(_ name: String) throws -> T { throw Stub() }
            public func optional<T>(_ name: String) throws -> T? { nil }
            public func optional<T: Decodable>(_ name: String) throws -> T? { nil }
            public func value<T>(_ name: String, default: @autoclosure () -> T) throws -> T { `default`() }
            public func value<T: Decodable>(_ name: String, default: @autoclosure () -> T) throws -> T { `default`() }
        }
        struct Stub: Error {}
        public struct HandlerParameter: Sendable {
            @_spi(HandlerKitGenerated) public static func required<T>(_ name: String, _ type: T.Type) -> HandlerParameter { .init() }
            @_spi(HandlerKitGenerated) public static func optional<T>(_ name: String, _ type: T.Type) -> HandlerParameter { .init() }
        }
        public struct HandlerDescriptor: Sendable {
            @_spi(HandlerKitGenerated) public init(id: String, parameters: [HandlerParameter], invoke: @escaping @Sendable (HandlerArguments) throws -> Void) {}
            @_spi(HandlerKitGenerated) public init(id: String, parameters: [HandlerParameter], invokeAsync: @escaping @Sendable (HandlerArguments) async throws -> Void) {}
        }
        public struct HandlerTable: Sendable { @_spi(HandlerKitGenerated) public init(module: String, handlers: [HandlerDescriptor]) {} }
        public final class HandlerRegistry: Sendable { public static let shared = HandlerRegistry(); public init() {} }
        public struct HandlerBindings: Sendable {
            public init() {}
            public mutating func bind<T: Encodable & Sendable>(_ name: String, _ value: T?) {}
            public mutating func bind<T>(_ name: String, _ value: T?) {}
        }
        public struct HandlerID: Sendable, Hashable {
            public let id: String
            public init(_ id: String) { self.id = id }
        }
        public final class Handler: Sendable {
            @_spi(HandlerKitGenerated) public init(id: String, module: String, table: String, bound: HandlerBindings = .init(), invalidation: String? = nil, registry: HandlerRegistry = .shared) throws {}
            @_spi(HandlerKitGenerated) public func callBound(as id: String, _ body: (HandlerArguments) throws -> Void) throws {}
            @_spi(HandlerKitGenerated) public func callBound(as id: String, isolation: isolated (any Actor)? = #isolation, _ body: (HandlerArguments) async throws -> Void) async throws {}
        }
        """

    static let userSource = """
        import HandlerKit

        struct Account: Codable, Sendable { var omemo: OMEMO { OMEMO() } }

        struct OMEMO {
            @handler(instance: "account.omemo")
            func bundleFetched(account: Account,
                               errorReason: String? = nil) async throws {}
        }

        enum Carbons {
            struct IQ: Codable, Sendable {}
            static let defaultLimit = 10

            @handler
            static func enabled(iq: IQ,
                                limit: Int = defaultLimit, note: String? = "n") {}
        }

        @handler(id: "cleanup.v1")
        func cleanUp(_ reason: String, values: [String: [Int]]? = nil) {}

        @MainActor enum Screen {
            @handler static func show(title: String) async {}
        }

        /// Isolated to the main actor by the function's attribute, by its extension's, and a
        /// `nonisolated` one in a main-actor type; a parameter type that is not `Sendable`.
        final class Canvas {}

        enum Banner {
            @MainActor @handler
            static func flash(text: String, on canvas: Canvas? = nil) {}
        }

        @MainActor extension Banner {
            @handler static func hide(after seconds: Double) async throws {}
        }

        @MainActor enum Panel {
            @handler nonisolated static func log(line: String) {}
        }

        @handler @MainActor
        func refresh(all: Bool) {}

        /// Defaults the generated code cannot repeat (private symbols), left to Swift.
        enum Paging {
            private static let pageSize = 25

            @handler
            static func fetch(page: Int,
                              size: Int = pageSize, order: String = Paging.order, caller: String = #function) {}
        }

        private extension Paging {
            static let order = "date"
        }

        enum Closures {
            @handler
            static func apply(transform: @escaping @Sendable (Int) -> Int = { x in
                x + 1
            }, to value: any Sendable, _ extra: (any Codable & Sendable)? = nil) {}
        }

        /// Typed calls whose names clash, a parameter named `handler`, a default naming a static member
        /// called like its parameter, a keyword as the name, a type that is not `Codable`.
        enum Calls {
            static let limit = 3
            final class Connection {}

            @handler
            static func callSend(note: String? = nil) {}

            @handler
            static func send(handler: Int, limit: Int = limit) {}

            @handler(id: "Calls.send.text")
            static func send(text: String) {}

            @handler
            static func `default`(connection: Connection) {}
        }

        """

    static var swiftc: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/swiftc"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Type-checks `user` (with the `@handler` attributes blanked out: the stub has no macro) and the file generated
    /// from it; returns the compiler's diagnostics. With `client`, module `App` (those two files, in
    /// package `Shop`) is built first, and the result is that of `client`, module `Client` of package
    /// `clientPackage`, which imports it.
    func compile(
        user: String, client: String? = nil, clientPackage: String = "Shop"
    ) throws -> (status: Int32, output: String) {
        let swiftc = try #require(Self.swiftc)
        let directory = FileManager.default.temporaryDirectory.appending(
            path: "handlergen-compile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scan = SourceScanner.scan(source: user, file: "User.swift")
        let generated = try HandlerGenerator(moduleName: "App").generate(scan)
        // Blank the attribute (with its arguments) without moving any other text.
        let blanked = user.replacing(#/@handler(\([^)]*\))?/#) { String(repeating: " ", count: $0.output.0.count) }
        try Data(Self.runtimeStub.utf8).write(to: directory.appending(path: "HandlerKit.swift"))
        try Data(blanked.utf8).write(to: directory.appending(path: "User.swift"))
        try Data(generated.utf8).write(to: directory.appending(path: "Generated.swift"))
        let stub = try run(
            swiftc,
            [
                "-swift-version", "6", "-parse-as-library", "-emit-module", "-module-name", "HandlerKit",
                "-emit-module-path", "HandlerKit.swiftmodule", "HandlerKit.swift",
            ], in: directory)
        #expect(stub.status == 0, "\(stub.output)")
        guard let client else {
            return try run(
                swiftc,
                [
                    "-swift-version", "6", "-emit-sil", "-wmo", "-o", "/dev/null", "-I", ".", "-module-name", "App",
                    "User.swift", "Generated.swift",
                ], in: directory)
        }
        let library = try run(
            swiftc,
            [
                "-swift-version", "6", "-parse-as-library", "-emit-module", "-module-name", "App",
                "-package-name", "Shop", "-emit-module-path", "App.swiftmodule", "-I", ".",
                "User.swift", "Generated.swift",
            ], in: directory)
        #expect(library.status == 0, "\(library.output)")
        try Data(client.utf8).write(to: directory.appending(path: "Client.swift"))
        return try run(
            swiftc,
            [
                "-swift-version", "6", "-emit-sil", "-wmo", "-o", "/dev/null", "-I", ".", "-module-name", "Client",
                "-package-name", clientPackage, "Client.swift",
            ], in: directory)
    }

    /// Compiles `source`, which must build without a warning.
    func expectCompiles(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try compile(user: source)
        #expect(result.status == 0, "\(result.output)", sourceLocation: sourceLocation)
        #expect(!result.output.contains("warning:"), "\(result.output)", sourceLocation: sourceLocation)
    }

    /// Compiles each of `sources`, which must fail with errors in the user's file only.
    func expectErrorsAtTheUser(_ sources: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for source in sources {
            let result = try compile(user: source)
            #expect(result.status != 0, sourceLocation: sourceLocation)
            let errors = result.output.split(separator: "\n").filter { $0.contains(": error: ") }
            #expect(
                !errors.isEmpty && errors.allSatisfy { $0.hasPrefix("User.swift:") }, "\(result.output)",
                sourceLocation: sourceLocation)
        }
    }

    func run(_ executable: String, _ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: swiftc != nil)) func validInputCompilesWithoutWarnings() throws {
        let result = try compile(user: Self.userSource)
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains("warning:"), "\(result.output)")
    }

    /// A misspelt handler or a bound value of the wrong type is a compile error.
    @Test(.enabled(if: swiftc != nil)) func referencesAreCompilerChecked() throws {
        let valid =
            Self.userSource + """
                func make() throws {
                    _ = try Carbons.enabledHandler(iq: Carbons.IQ(), limit: 3)
                    _ = try OMEMO.bundleFetchedHandler(account: Account())
                    _ = try cleanUpHandler(reason: "done", values: ["a": [1]])
                }

                """
        let ok = try compile(user: valid)
        #expect(ok.status == 0, "\(ok.output)")

        let misspelt = valid.replacingOccurrences(of: "Carbons.enabledHandler(", with: "Carbons.enabeldHandler(")
        let wrongType = valid.replacingOccurrences(of: "limit: 3)", with: "limit: \"3\")")
        let wrongName = valid.replacingOccurrences(of: "reason: \"done\"", with: "reasn: \"done\"")
        for source in [misspelt, wrongType, wrongName] {
            let result = try compile(user: source)
            #expect(result.status != 0)
            #expect(result.output.contains("User.swift:") && result.output.contains(": error: "), "\(result.output)")
        }
    }

    /// Typed calls: a value of the wrong type, a misspelt parameter, a missing `await` or a parameter
    /// of another handler does not compile, and is reported at the user's call.
    @Test(.enabled(if: swiftc != nil)) func typedCallsAreCompilerChecked() throws {
        let valid =
            Self.userSource + """
                func call(_ handler: Handler) async throws {
                    try Carbons.callEnabledHandler(handler, limit: 3, note: nil)
                    try await OMEMO.callBundleFetchedHandler(handler, account: Account())
                    try callCleanUpHandler(handler, reason: "done", values: ["a": [1]])
                    try await Screen.callShowHandler(handler, title: "t")
                    try Closures.callApplyHandler(handler, transform: { $0 * 2 }, value: 1)
                    try Calls.callCallSendHandler(handler, note: "n")
                    try Calls.callSendHandler_2(handler, handler: 1, limit: 2)
                    try Calls.callSendHandler_3(handler, text: "t")
                    try Calls.callDefaultHandler(handler, connection: Calls.Connection())
                }

                """
        try expectCompiles(valid)

        let wrongType = valid.replacingOccurrences(of: "limit: 3, note: nil", with: "limit: \"3\", note: nil")
        let misspelt = valid.replacingOccurrences(of: "title: \"t\"", with: "titel: \"t\"")
        let withoutAwait = valid.replacingOccurrences(of: "try await OMEMO.", with: "try OMEMO.")
        let otherHandler = valid.replacingOccurrences(
            of: "callSendHandler_3(handler, text:", with: "callSendHandler_2(handler, text:")
        try expectErrorsAtTheUser([wrongType, misspelt, withoutAwait, otherHandler])
    }

    /// The helpers of a `public` handler (or one in a `public extension`) are public, those
    /// of a `package` handler are visible in the package, the others stay internal.
    @Test(.enabled(if: swiftc != nil)) func helpersTakeTheHandlersAccessLevelAcrossModules() throws {
        let library = """
            import HandlerKit

            public struct Item: Codable, Sendable { public init() {} }

            public enum Feed {
                @handler public static func fetched(item: Item) {}
                @handler static func audited(entry: String) {}
            }

            public extension Feed {
                @handler static func cleared(count: Int) {}
            }

            public enum Admin {
                @handler package static func reset(level: Int) {}
            }

            @MainActor public enum Badge {
                @handler public static func bumped(by amount: Int) {}
            }

            @handler public func ping() {}

            """
        let client = """
            import App
            import HandlerKit

            func use(_ handler: Handler) async throws {
                _ = try Feed.fetchedHandler(item: Item(), invalidation: Feed.clearedHandlerID)
                try Feed.callFetchedHandler(handler, item: Item())
                _ = try Feed.clearedHandler(count: 1)
                try await Badge.callBumpedHandler(handler, amount: 1)
                _ = try pingHandler(invalidation: pingHandlerID)
                _ = try Admin.resetHandler(level: 1)
            }

            """
        let ok = try compile(user: library, client: client)
        #expect(ok.status == 0, "\(ok.output)")
        #expect(!ok.output.contains("warning:"), "\(ok.output)")

        let internalHelper = try compile(
            user: library, client: client + "let audited = try? Feed.auditedHandler(entry: \"x\")\n")
        #expect(internalHelper.status != 0)
        #expect(
            internalHelper.output.contains("'auditedHandler' is inaccessible due to 'internal' protection level"),
            "\(internalHelper.output)")

        let otherPackage = try compile(user: library, client: client, clientPackage: "Elsewhere")
        #expect(otherPackage.status != 0)
        let errors = otherPackage.output.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(
            errors.count == 1
                && errors.allSatisfy { $0.contains("'resetHandler' is inaccessible due to 'package' protection level") },
            "\(otherPackage.output)")
    }

    /// A generated id stands for an invalidation target, so a misspelt
    /// one (or a plain string) does not compile.
    @Test(.enabled(if: swiftc != nil)) func invalidationTargetsAreCompilerChecked() throws {
        let valid =
            Self.userSource + """
                func make() throws {
                    _ = try Carbons.enabledHandler(iq: Carbons.IQ(), invalidation: Screen.showHandlerID)
                    _ = try cleanUpHandler(reason: "r", invalidation: refreshHandlerID)
                    _ = try Carbons.enabledHandler(invalidation: HandlerID("dynamic.id"))
                }

                """
        try expectCompiles(valid)

        let misspelt = valid.replacingOccurrences(of: "Screen.showHandlerID", with: "Screen.shwoHandlerID")
        let string = valid.replacingOccurrences(of: "invalidation: refreshHandlerID", with: "invalidation: \"refresh\"")
        try expectErrorsAtTheUser([misspelt, string])
    }

    /// Handlers isolated to the main actor: their typed calls are isolated to it and `async`.
    @Test(.enabled(if: swiftc != nil)) func globalActorHandlersAreCalledOnTheirActor() throws {
        let valid =
            Self.userSource + """
                func call(_ handler: Handler) async throws {
                    try await Banner.callFlashHandler(handler, text: "t")
                    try await Banner.callHideHandler(handler, seconds: 1)
                    try Panel.callLogHandler(handler, line: "l")
                    try await callRefreshHandler(handler, all: true)
                }

                @MainActor func callOnTheMainActor(_ handler: Handler) async throws {
                    try await Banner.callFlashHandler(handler, text: "t", canvas: Canvas())
                }

                """
        try expectCompiles(valid)

        // The typed call of a handler on the main actor is `async`.
        let withoutAwait = valid.replacingOccurrences(
            of: "try await Banner.callFlashHandler(handler, text: \"t\")",
            with: "try Banner.callFlashHandler(handler, text: \"t\")")
        try expectErrorsAtTheUser([withoutAwait])
    }

    /// Isolation Swift infers (here from a main-actor superclass) is not seen by the scanner: the
    /// compiler's error is reported at the user's declaration, which the README's fix (`@MainActor` on
    /// the function) resolves.
    @Test(.enabled(if: swiftc != nil)) func inferredIsolationIsReportedAtTheUsersLine() throws {
        let inferred =
            Self.userSource + """
                @MainActor class Controller {}

                final class DetailController: Controller {
                    @handler
                    static func tapped(row: Int) {}
                }

                """
        let lines = inferred.split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(lines.firstIndex { $0.contains("static func tapped") }) + 1
        let result = try compile(user: inferred)
        #expect(result.status != 0)
        let errors = result.output.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(
            errors.contains { $0.hasPrefix("User.swift:\(line):") && $0.contains("main actor") }, "\(result.output)")
        #expect(!errors.contains { $0.hasPrefix("Generated.swift") }, "\(result.output)")

        try expectCompiles(
            inferred.replacingOccurrences(of: "static func tapped", with: "@MainActor static func tapped"))
    }

    @Test(.enabled(if: swiftc != nil)) func errorsInADefaultValueAndInstanceExpressionPointAtTheUser() throws {
        let broken = Self.userSource
            .replacingOccurrences(of: "limit: Int = defaultLimit", with: "limit: Int = defaultLimitt")
            .replacingOccurrences(of: "instance: \"account.omemo\"", with: "instance: \"account.omemoo\"")
        let result = try compile(user: broken)
        #expect(result.status != 0)
        let errors = result.output.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(errors.contains { $0.hasPrefix("User.swift:17:") && $0.contains("defaultLimitt") }, "\(result.output)")
        #expect(errors.contains { $0.hasPrefix("User.swift:6:") && $0.contains("omemoo") }, "\(result.output)")
        #expect(!errors.contains { $0.hasPrefix("Generated.swift") }, "\(result.output)")
    }
}
