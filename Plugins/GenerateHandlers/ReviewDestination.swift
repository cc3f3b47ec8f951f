import Foundation
import PackagePlugin

/// Where the reviewed files go.
struct ReviewDestination {
    private enum Kind {
        /// Next to each target's sources.
        case nextToSources
        /// This one file (a single target).
        case file(URL)
        /// One file per target in this folder.
        case folder(URL)
        /// Printed (`--output -`, a single target).
        case standardOutput
    }

    private let kind: Kind

    /// - Parameters:
    ///   - output: the `--output` value: a file, a folder (existing, or ending in `/`) or `-`; a
    ///     relative path is relative to the package.
    ///   - targetCount: how many targets are written; more than one needs a folder.
    init(output: String?, packageDirectory: URL, targetCount: Int) throws {
        guard let output else {
            kind = .nextToSources
            return
        }
        if output == "-" {
            guard targetCount == 1 else {
                throw ReviewError.usage(
                    "--output - prints one file, but \(targetCount) targets are selected: name one with --target")
            }
            kind = .standardOutput
            return
        }
        let url =
            output.hasPrefix("/")
            ? URL(fileURLWithPath: output)
            : packageDirectory.appending(path: output, directoryHint: .inferFromPath)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path(percentEncoded: false), isDirectory: &isDirectory)
        if output.hasSuffix("/") || (exists && isDirectory.boolValue) {
            if !exists { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
            kind = .folder(url)
        } else if targetCount > 1 {
            throw ReviewError.usage(
                "--output \(output) names one file, but \(targetCount) targets are selected: give a folder (ending in /) or one --target"
            )
        } else {
            kind = .file(url)
        }
    }

    /// Whether files go next to each target's sources (no `--output`).
    var isNextToSources: Bool {
        if case .nextToSources = kind { return true }
        return false
    }

    /// The `--output` argument `handlergen review` gets for `target`.
    func outputArgument(for target: SwiftSourceModuleTarget) -> String {
        let name = "\(target.moduleName).handlers.swift.txt"
        switch kind {
        case .nextToSources:
            return target.directoryURL.appending(path: name, directoryHint: .notDirectory).path(percentEncoded: false)
        case .file(let url): return url.path(percentEncoded: false)
        case .folder(let url):
            return url.appending(path: name, directoryHint: .notDirectory).path(percentEncoded: false)
        case .standardOutput: return "-"
        }
    }
}
