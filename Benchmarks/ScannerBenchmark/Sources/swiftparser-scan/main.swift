// `swiftparser-scan PATH…`: parses every `.swift` file under the PATHs with SwiftParser and prints how
// many files and top-level statements it saw. The whole-process counterpart of `handlergen scan` in the
// scanner benchmark: process start, directory walk, reading and parsing, as a user would run it.
// Hidden files and folders are skipped, as `handlergen scan` skips them.
import Foundation
import SwiftParser
import SwiftSyntax

var files = 0
var statements = 0
var failures = 0
for root in CommandLine.arguments.dropFirst() {
    var paths: [String] = []
    if let enumerator = FileManager.default.enumerator(atPath: root) {
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") {
                enumerator.skipDescendants()
                continue
            }
            if name.hasSuffix(".swift") { paths.append(root + "/" + relative) }
        }
    } else {
        paths.append(root)
    }
    for path in paths.sorted() {
        guard let data = FileManager.default.contents(atPath: path) else {
            failures += 1
            continue
        }
        let tree = Parser.parse(source: String(decoding: data, as: UTF8.self))
        statements += tree.statements.count
        files += 1
    }
}
print("files: \(files) files")
print("statements: \(statements) statements")
if failures > 0 {
    print("unreadable: \(failures) files")
    exit(1)
}
