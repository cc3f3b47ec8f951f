import Foundation
import PackagePlugin

/// The C header folders `handlergen` reads for a target, as the build plugin passes them: the public
/// header folders of the C targets it depends on, directly or not, so the reviewed file has the same
/// JSON conversions of C structs and enums as the built one.
enum CHeaderDirectories {
    static func of(_ target: SwiftSourceModuleTarget) -> [URL] {
        target.recursiveTargetDependencies
            .compactMap { $0 as? ClangSourceModuleTarget }
            .sorted { $0.name < $1.name }
            .compactMap(\.publicHeadersDirectoryURL)
            .filter { FileManager.default.fileExists(atPath: $0.path(percentEncoded: false)) }
    }
}
