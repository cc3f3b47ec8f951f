import HandlerGenerator
import HandlerScanner
import Testing

/// The generated file repeats the sources' imports, so parameter types such as `URL` resolve.
@Suite struct ImportRepetitionTests {
    func generate(_ files: [(name: String, source: String)]) throws -> String {
        var scan = ScanResult()
        for file in files {
            let result = SourceScanner.scan(source: file.source, file: file.name)
            scan.handlers += result.handlers
            scan.diagnostics += result.diagnostics
            scan.imports += result.imports
        }
        #expect(scan.diagnostics.isEmpty, "\(scan.diagnostics.map(\.compilerFormatted))")
        return try HandlerGenerator(moduleName: "App").generate(scan)
    }

    @Test func importsAreRepeatedOnceEachUnderTheirConditions() throws {
        let text = try generate([
            (
                "A.swift",
                """
                import Foundation
                import HandlerKit
                #if canImport(Glibc)
                import Glibc
                #endif
                enum Files { @handler static func opened(url: URL) {} }
                """
            ),
            (
                "B.swift",
                """
                #if DEBUG
                import Foundation
                #endif
                @testable import Core
                import Core
                #if canImport(Glibc)
                import Glibc
                #endif
                """
            ),
        ])
        let header = text.components(separatedBy: "extension HandlerTable")[0]
        #expect(
            header.hasSuffix(
                """
                @_spi(HandlerKitGenerated) import HandlerKit
                @testable import Core
                import Foundation
                #if canImport(Glibc)
                import Glibc
                #endif

                /// Tells `@handler` that the build plugin ran for this module: it shadows HandlerKit's unavailable
                /// fallback of the same name, whose message says to add the plugin.
                enum _HandlerKitGeneratedFile {}


                """))
    }
}
