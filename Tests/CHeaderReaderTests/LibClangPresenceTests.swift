import Foundation
import Testing

@testable import CHeaderReader

@Suite("libclangs under test")
struct LibClangPresenceTests {
    @Test("at least one libclang, and on Linux both the toolchain's and the system's")
    func libclangsArePresent() throws {
        let paths = LibClangsUnderTest.all
        try #require(
            !paths.isEmpty,
            """
            No libclang found, so the CHeaderReader tests cannot run. Install one \
            (`Scripts/install-dependencies.sh`, i.e. `apt-get install libclang-dev`) or list paths in \
            \(LibClangsUnderTest.environmentVariable).
            """)
        #if os(Linux)
        if ProcessInfo.processInfo.environment[LibClangsUnderTest.environmentVariable] == nil {
            let locator = LibClangLocator(environment: ProcessInfo.processInfo.environment)
            #expect(
                locator.toolchainCandidates().contains { FileSystem.isFile($0.path) },
                "the Swift toolchain's usr/lib/libclang.so was not found from `swift` on PATH")
            #expect(
                locator.systemCandidates().contains { FileSystem.isFile($0.path) },
                "no system libclang (/usr/lib/llvm-*/lib/libclang.so): run Scripts/install-dependencies.sh")
        }
        #endif
    }

    @Test("each libclang loads and reports its version", arguments: LibClangsUnderTest.all)
    func loads(path: String) throws {
        let info = try LibClangsUnderTest.reader(path).libclang()
        #expect(info.path == path)
        #expect(info.version.contains("clang version"))
        print("libclang under test: \(path): \(info.version)")
    }
}
