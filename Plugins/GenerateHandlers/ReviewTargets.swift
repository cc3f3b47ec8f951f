import Foundation
import PackagePlugin

/// Which targets `generate-handlers` writes a file for.
enum ReviewTargets {
    /// The targets named, in the order given; or, when none is named, every Swift target that
    /// depends on HandlerKit and has a `@handler` function (or a misuse of one), by name.
    static func select(named names: [String], in package: Package, tool: URL) throws -> [SwiftSourceModuleTarget] {
        if !names.isEmpty {
            return try package.targets(named: names).map { target in
                guard let swiftTarget = target as? SwiftSourceModuleTarget else {
                    throw ReviewError.usage("\(target.name) is not a Swift target")
                }
                return swiftTarget
            }
        }
        return try package.targets
            .compactMap { $0 as? SwiftSourceModuleTarget }
            .filter { dependsOnHandlerKit($0) && mentionsHandler($0) }
            .filter { try hasHandlers($0, tool: tool) }
            .sorted { $0.name < $1.name }
    }

    /// Whether `handlergen scan` finds a handler or a diagnostic in the target (text that merely
    /// mentions `@handler`, in a comment or a string, finds neither).
    static func hasHandlers(_ target: SwiftSourceModuleTarget, tool: URL) throws -> Bool {
        let files = target.sourceFiles(withSuffix: "swift").map { $0.url.path(percentEncoded: false) }.sorted()
        let json = try ToolRun.output(tool, arguments: ["scan", "--format", "json"] + files)
        return json.trimmingCharacters(in: .whitespacesAndNewlines) != #"{"handlers":[],"diagnostics":[]}"#
    }

    static func dependsOnHandlerKit(_ target: SwiftSourceModuleTarget) -> Bool {
        target.recursiveTargetDependencies.contains { $0.name == "HandlerKit" }
    }

    /// A cheap textual check before the scan.
    static func mentionsHandler(_ target: SwiftSourceModuleTarget) -> Bool {
        target.sourceFiles(withSuffix: "swift").contains { file in
            guard let data = FileManager.default.contents(atPath: file.url.path(percentEncoded: false)) else {
                return false
            }
            return String(decoding: data, as: UTF8.self).contains("@handler")
        }
    }
}
