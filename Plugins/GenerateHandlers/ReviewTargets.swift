import Foundation
import PackagePlugin

/// Which targets `generate-handlers` writes a file for.
enum ReviewTargets {
    /// The targets named, in the order given; or, when none is named, every Swift target that
    /// depends on HandlerKit and mentions `@handler` in a source file, by name.
    static func select(named names: [String], in package: Package) throws -> [SwiftSourceModuleTarget] {
        if !names.isEmpty {
            return try package.targets(named: names).map { target in
                guard let swiftTarget = target as? SwiftSourceModuleTarget else {
                    throw ReviewError.usage("\(target.name) is not a Swift target")
                }
                return swiftTarget
            }
        }
        return package.targets
            .compactMap { $0 as? SwiftSourceModuleTarget }
            .filter { dependsOnHandlerKit($0) && mentionsHandler($0) }
            .sorted { $0.name < $1.name }
    }

    static func dependsOnHandlerKit(_ target: SwiftSourceModuleTarget) -> Bool {
        target.recursiveTargetDependencies.contains { $0.name == "HandlerKit" }
    }

    /// A cheap textual check; a mention in a comment only costs an empty table.
    static func mentionsHandler(_ target: SwiftSourceModuleTarget) -> Bool {
        target.sourceFiles(withSuffix: "swift").contains { file in
            guard let data = FileManager.default.contents(atPath: file.url.path(percentEncoded: false)) else {
                return false
            }
            return String(decoding: data, as: UTF8.self).contains("@handler")
        }
    }
}
