import HandlerGenerator
import HandlerScanner
import Testing

/// Handlers under `#if` get the same conditions around their shim, their reference and their table entry.
@Suite struct ConditionTests {
    static let source = """
        import HandlerKit

        enum Platform {
        #if os(Linux)
            @handler static func linux() {}
        #elseif os(macOS)
            #if DEBUG
            @handler static func macDebug() {}
            #endif
        #else
            @handler static func other() {}
        #endif
            @handler static func always() {}
        }

        """

    func generate() throws -> String {
        let scan = SourceScanner.scan(source: Self.source, file: "Platform.swift")
        #expect(scan.diagnostics.isEmpty, "\(scan.diagnostics.map(\.compilerFormatted))")
        #expect(scan.handlers.count == 4)
        return try HandlerGenerator(moduleName: "App").generate(scan)
    }

    /// The lines from the table entry of `name` up to its `#endif`s, and the whole block of its members.
    func occurrences(of text: String, in output: String) -> Int {
        output.components(separatedBy: text).count - 1
    }

    @Test func ifBranchKeepsItsCondition() throws {
        let output = try generate()
        #expect(
            output.contains(
                """
                        #if os(Linux)
                        handlers.append(Platform.linuxHandlerDescriptor())
                        #endif
                """))
        #expect(
            output.contains(
                """
                #if os(Linux)
                extension Platform {
                """))
    }

    @Test func elseifAndNestedIfAreReproducedOnTheirOwn() throws {
        let output = try generate()
        #expect(
            output.contains(
                """
                        #if !(os(Linux)) && (os(macOS))
                        #if DEBUG
                        handlers.append(Platform.macDebugHandlerDescriptor())
                        #endif
                        #endif
                """))
        #expect(
            output.contains(
                """
                #if !(os(Linux)) && (os(macOS))
                #if DEBUG
                extension Platform {
                """))
    }

    @Test func elseBranchNegatesEveryEarlierBranch() throws {
        let output = try generate()
        #expect(
            output.contains(
                """
                        #if !(os(Linux)) && !(os(macOS))
                        handlers.append(Platform.otherHandlerDescriptor())
                        #endif
                """))
    }

    @Test func unconditionalHandlerHasNoCondition() throws {
        let output = try generate()
        #expect(
            output.contains(
                """
                        handlers.reserveCapacity(4)
                        handlers.append(Platform.alwaysHandlerDescriptor())
                """))
        #expect(occurrences(of: "#if", in: output) == occurrences(of: "#endif", in: output))
    }

    @Test func sameIDInExclusiveBranchesIsAccepted() throws {
        let source = """
            enum A {
            #if os(Linux)
                @handler static func f(x: Int) {}
            #else
                @handler static func f(x: String) {}
            #endif
            }
            """
        let scan = SourceScanner.scan(source: source, file: "A.swift")
        let output = try HandlerGenerator(moduleName: "App").generate(scan)
        #expect(output.contains("fileprivate static func fHandlerDescriptor()"))
        #expect(output.contains("fileprivate static func fHandlerDescriptor_2()"))
    }
}
