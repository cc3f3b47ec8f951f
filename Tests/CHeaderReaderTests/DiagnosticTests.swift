import Foundation
import Testing

@testable import CHeaderReader

@Suite("diagnostics")
struct DiagnosticTests {
    static let unsupported = CHeaderSources(headers: [Fixtures.path("Unsupported/HKUnsupported.h")])

    @Test("unions and pointers other than strings name the type and the field", arguments: LibClangsUnderTest.all)
    func unsupportedFields(libclang: String) throws {
        let model = try LibClangsUnderTest.reader(libclang).read(
            types: ["HKBad", "HKAlsoBad", "HKUsesBad", "HKUnionAlias", "HKForward", "HKCount", "NoSuchType"],
            from: Self.unsupported)
        #expect(model.declarations.isEmpty)
        #expect(model.notFound == ["HKCount", "NoSuchType"])
        let problems = model.diagnostics.map {
            "\($0.typeName ?? "-").\($0.fieldName ?? "-")@\($0.location?.line ?? 0)"
        }
        #expect(
            problems == [
                "HKBad.number@13",
                "HKBad.context@14",
                "HKAlsoBad.mutableText@18",
                "HKAlsoBad.flexible@19",
                "HKUsesBad.bad@23",
                "HKUnionAlias.-@26",
                "HKForward.-@30",
            ])
        #expect(model.diagnostics.allSatisfy { $0.severity == .error })
        #expect(model.diagnostics.allSatisfy { $0.location?.file.hasSuffix("HKUnsupported.h") == true })
        let number = try #require(model.diagnostics.first { $0.fieldName == "number" })
        #expect(
            number.message
                == "field 'number' of 'HKBad' is a union ('union HKNumber'); HandlerKit cannot convert unions")
        let context = try #require(model.diagnostics.first { $0.fieldName == "context" })
        #expect(
            context.message
                == "field 'context' of 'HKBad' is a pointer ('void *'); only 'const char *' strings are supported")
        #expect(context.description.hasSuffix("HKUnsupported.h:14:11: error: \(context.message)"))
    }

    @Test("a header that does not parse gives libclang's error with file and line", arguments: LibClangsUnderTest.all)
    func brokenHeader(libclang: String) throws {
        let sources = CHeaderSources(headers: [Fixtures.path("Broken/HKBroken.h")])
        let model = try LibClangsUnderTest.reader(libclang).read(types: ["HKBroken"], from: sources)
        #expect(model.hasErrors)
        let error = try #require(model.diagnostics.first)
        #expect(error.severity == .error)
        #expect(error.location?.file == Fixtures.path("Broken/HKBroken.h"))
        #expect(error.location?.line == 6)
        #expect(error.message.contains("undeclared_type_t"))
    }

    @Test("a missing header is a typed error naming it")
    func missingHeader() throws {
        let missing = Fixtures.path("Basic/include/HKMissing.h")
        let sources = CHeaderSources(headers: [Fixtures.path("Basic/include/HKPoint.h"), missing])
        #expect(throws: CHeaderReaderError.headerNotFound(missing)) {
            try CHeaderReader(libclangPath: "/nonexistent/libclang.so").read(types: ["HKPoint"], from: sources)
        }
        let missingDirectory = Fixtures.path("NoSuchDirectory")
        #expect(throws: CHeaderReaderError.includeDirectoryNotFound(missingDirectory)) {
            try CHeaderSources.module(includeDirectories: [missingDirectory])
        }
    }
}
