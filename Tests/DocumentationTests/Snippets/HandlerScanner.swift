// The Swift block of the overview of HandlerScanner (HandlerScanner.docc/HandlerScanner.md; see
// ArticleSnippetTests). Nothing here runs.

// snippet: scan
import Foundation
import HandlerScanner

// end snippet
enum HandlerScannerArticle {
    static func scan() {
        // snippet: scan
        let result = SourceScanner.scan(paths: ["Sources/Chat"], relativeTo: FileManager.default.currentDirectoryPath)
        for handler in result.handlers {
            print(handler.id, handler.kind, handler.parameters.map(\.name))
        }
        for diagnostic in result.diagnostics {
            print(diagnostic.compilerFormatted)    // path:line:column: error: …
        }
        // end snippet
    }
}
