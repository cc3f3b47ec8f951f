import Foundation
import Testing

@testable import CHeaderReader

@Suite("locating libclang")
struct LibClangLocatorTests {
    static let sources = CHeaderSources(headers: [Fixtures.path("Basic/include/HKPoint.h")])

    @Test("an explicit path that does not exist is the typed error listing it and how to install libclang")
    func explicitPathMissing() throws {
        let reader = CHeaderReader(
            libclangPath: "/nonexistent/lib/libclang.so",
            environment: ["HANDLERKIT_LIBCLANG": "/also/ignored.so"])
        do {
            _ = try reader.read(types: ["HKPoint"], from: Self.sources)
            Issue.record("expected libclangNotFound")
        } catch {
            guard case .libclangNotFound(let tried, let hint) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(
                tried == [
                    LibClangAttempt(
                        path: "/nonexistent/lib/libclang.so", source: .explicit,
                        failure: "not found")
                ])
            #if os(Linux)
            #expect(hint.contains("apt-get install libclang-dev"))
            #endif
            #expect(error.description.contains("/nonexistent/lib/libclang.so (explicit): not found"))
        }
    }

    @Test("HANDLERKIT_LIBCLANG, when set, is the only candidate; a file that is not a library is reported")
    func environmentVariable() throws {
        let notALibrary = Fixtures.path("Basic/include/HKPoint.h")
        let reader = CHeaderReader(environment: ["HANDLERKIT_LIBCLANG": notALibrary, "PATH": "/usr/bin"])
        #expect(reader.locator.candidates() == [LibClangCandidate(path: notALibrary, source: .environment)])
        do {
            _ = try reader.libclang()
            Issue.record("expected libclangNotFound")
        } catch {
            guard case .libclangNotFound(let tried, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(tried.count == 1)
            #expect(tried.first?.path == notALibrary)
            #expect(tried.first?.failure.isEmpty == false)
            #expect(tried.first?.failure != "not found")
        }
    }

    @Test("without an explicit path: the toolchain of `swift` on PATH (symlinks resolved), then the system's")
    func searchOrder() throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("HKLocator-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let toolchainBin = root + "/toolchain/usr/bin"
        let pathBin = root + "/bin"
        try FileManager.default.createDirectory(atPath: toolchainBin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: pathBin, withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(
                atPath: toolchainBin + "/swift", contents: Data("#!/bin/sh\n".utf8),
                attributes: [.posixPermissions: 0o755]))
        try FileManager.default.createSymbolicLink(
            atPath: pathBin + "/swift", withDestinationPath: toolchainBin + "/swift")

        let locator = LibClangLocator(environment: ["PATH": pathBin])
        let candidates = locator.candidates()
        let resolvedRoot = FileSystem.resolvingSymlinks(root)
        #expect(
            candidates.first
                == LibClangCandidate(
                    path: resolvedRoot + "/toolchain/usr/lib/" + LibClangLocator.libraryFileName, source: .toolchain))
        #if os(Linux)
        #expect(candidates.dropFirst().allSatisfy { $0.source == .system })
        #expect(
            candidates.contains { $0.path.hasPrefix("/usr/lib/llvm-") || $0.path == "/usr/lib/llvm-*/lib/libclang.so" })
        #endif

        // The error lists every path tried when none loads.
        let explicitLocator = LibClangLocator(explicitPath: root + "/toolchain", environment: [:])
        #expect(
            explicitLocator.candidates() == [
                LibClangCandidate(
                    path: root + "/toolchain/" + LibClangLocator.libraryFileName, source: .explicit)
            ])
    }

    @Test("libclang is not loaded when no requested name occurs in the headers")
    func lazyLoading() throws {
        let reader = CHeaderReader(libclangPath: "/nonexistent/lib/libclang.so")
        let model = try reader.read(types: ["Int", "String", "Account"], from: Self.sources)
        #expect(model.libclang == nil)
        #expect(model.notFound == ["Account", "Int", "String"])
        #expect(model.declarations.isEmpty)
        let empty = try reader.read(types: [String](), from: Self.sources)
        #expect(empty == CHeaderModel())
    }
}
