import HandlerScanner
import Testing

@Suite("File-scope imports")
struct ImportTests {
    @Test func recordsModulesAttributesKindsAndConditions() {
        let result = scan(
            """
            import Foundation
            @testable import Core
            import struct Geometry.Point
            import `Backticked`
            #if canImport(UIKit)
            import UIKit
            #else
            import AppKit
            #endif
            // import Commented
            let text = "import Quoted"
            enum E {
                func f() { }
            }
            """)
        #expect(result.imports.map(\.module) == ["Foundation", "Core", "Geometry", "Backticked", "UIKit", "AppKit"])
        #expect(result.imports.map(\.isTestable) == [false, true, false, false, false, false])
        #expect(result.imports[4].conditions.map(\.expression) == ["canImport(UIKit)"])
        #expect(result.imports[5].conditions.map(\.branch) == [.else])
        #expect(result.imports[5].conditions.first?.precedingExpressions == ["canImport(UIKit)"])
    }

    @Test func importKeywordsElsewhereAreNotImports() {
        let result = scan(
            """
            struct S {
                let `import` = 1
                func f() { _ = self.import }
            }
            """)
        #expect(result.imports.isEmpty)
    }
}
