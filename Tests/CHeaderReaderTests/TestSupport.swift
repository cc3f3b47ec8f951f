import Foundation
import Testing

@testable import CHeaderReader

/// Paths of the fixture headers (copied into the test bundle).
enum Fixtures {
    static var root: String {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            Issue.record("the Fixtures resource is missing from the test bundle")
            return "/nonexistent-fixtures"
        }
        return url.path
    }

    static func path(_ relative: String) -> String { (root as NSString).appendingPathComponent(relative) }
}

/// The libclangs the suite runs against: every one installed on this machine (the Swift toolchain's and
/// the system's), or the colon-separated list in `HANDLERKIT_TEST_LIBCLANGS`.
enum LibClangsUnderTest {
    static let environmentVariable = "HANDLERKIT_TEST_LIBCLANGS"

    static let all: [String] = {
        let environment = ProcessInfo.processInfo.environment
        if let list = environment[environmentVariable], !list.isEmpty {
            return list.split(separator: ":").map(String.init)
        }
        let locator = LibClangLocator(explicitPath: nil, environment: environment)
        let toolchain = locator.toolchainCandidates().first { FileSystem.isFile($0.path) }
        let system = locator.systemCandidates().first { FileSystem.isFile($0.path) }
        let xcode = locator.xcodeCandidates().first { FileSystem.isFile($0.path) }
        return [toolchain, system, xcode].compactMap { $0?.path }
    }()

    /// A reader pinned to one libclang.
    static func reader(_ path: String) -> CHeaderReader {
        CHeaderReader(libclangPath: path, environment: [:])
    }
}

extension CIntegerType {
    static let int8 = CIntegerType(isSigned: true, bits: 8)
    static let int16 = CIntegerType(isSigned: true, bits: 16)
    static let int32 = CIntegerType(isSigned: true, bits: 32)
    static let int64 = CIntegerType(isSigned: true, bits: 64)
    static let uint8 = CIntegerType(isSigned: false, bits: 8)
    static let uint16 = CIntegerType(isSigned: false, bits: 16)
    static let uint32 = CIntegerType(isSigned: false, bits: 32)
    static let uint64 = CIntegerType(isSigned: false, bits: 64)
    /// Plain `char`: signed on x86, unsigned on Linux on ARM; Swift's CChar follows the platform.
    static let char = CIntegerType(isSigned: CChar.isSigned, bits: 8)
}

/// Field name and type, without spelling and location, for compact expectations.
struct FieldShape: Equatable, CustomStringConvertible {
    var name: String
    var type: CFieldType

    init(_ name: String, _ type: CFieldType) {
        self.name = name
        self.type = type
    }

    var description: String { "\(name): \(type)" }
}

extension CStruct {
    var shape: [FieldShape] { fields.map { FieldShape($0.name, $0.type) } }
}
