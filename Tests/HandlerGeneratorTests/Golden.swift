import Foundation
import Testing

/// Reference ("golden") files: generated output is compared with them byte for byte.
///
/// Re-record after an intended change of the generator or the templates, then review the diff:
///
///     HANDLERKIT_RECORD=1 swift test --scratch-path .build-gen --filter HandlerGeneratorTests
///     git diff Tests/
///
/// In record mode every compared file is rewritten with the actual output and the comparison passes.
enum Golden {
    /// The package's root directory (this file is `Tests/HandlerGeneratorTests/Golden.swift`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var isRecording: Bool {
        ProcessInfo.processInfo.environment["HANDLERKIT_RECORD"] == "1"
    }

    /// Compares `actual` with the file at `path` (relative to the package root), or rewrites it when
    /// recording.
    static func check(_ actual: String, against path: String, sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        let url = packageRoot.appending(path: path)
        if isRecording {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            return
        }
        guard let expected = try? Data(contentsOf: url) else {
            Issue.record(
                "missing reference \(path); record it with HANDLERKIT_RECORD=1", sourceLocation: sourceLocation)
            return
        }
        if expected != Data(actual.utf8) {
            let expectedLines = String(decoding: expected, as: UTF8.self).split(
                separator: "\n", omittingEmptySubsequences: false)
            let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let line =
                zip(expectedLines, actualLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(expectedLines.count, actualLines.count)
            let expectedLine = line < expectedLines.count ? String(expectedLines[line]) : "<end of file>"
            let actualLine = line < actualLines.count ? String(actualLines[line]) : "<end of file>"
            Issue.record(
                """
                \(path) differs at line \(line + 1):
                  expected: \(expectedLine)
                  actual:   \(actualLine)
                Re-record with HANDLERKIT_RECORD=1 if the change is intended.
                """,
                sourceLocation: sourceLocation
            )
        }
    }
}
