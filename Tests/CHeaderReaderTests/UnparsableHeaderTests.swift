import Foundation
import Testing

@testable import CHeaderReader

/// Headers libclang cannot parse on their own (as a TLS library's can be): they matter only when a
/// requested type is declared in them, and each C module is parsed on its own.
@Suite("headers that do not parse")
struct UnparsableHeaderTests {
    static let unparsable = Fixtures.path("Unparsable/include")
    static let basic = Fixtures.path("Basic/include")

    @Test("a name the broken headers only mention gives no error", arguments: LibClangsUnderTest.all)
    func mentionedOnly(libclang: String) throws {
        let sources = try CHeaderSources.module(includeDirectories: [Self.unparsable])
        let model = try LibClangsUnderTest.reader(libclang).read(types: ["HKSession"], from: sources)
        #expect(model.libclang != nil, "the name occurs in the header, so libclang reads it")
        #expect(model.diagnostics.isEmpty, "\(model.diagnostics)")
        #expect(model.notFound == ["HKSession"])
    }

    @Test("a type declared in them names itself, the header and libclang's error", arguments: LibClangsUnderTest.all)
    func declaredThere(libclang: String) throws {
        let sources = try CHeaderSources.module(includeDirectories: [Self.unparsable])
        let model = try LibClangsUnderTest.reader(libclang).read(types: ["HKSecret", "HKSession"], from: sources)
        #expect(model.hasErrors)
        let error = try #require(model.diagnostics.first)
        #expect(error.location?.file.hasSuffix("Unparsable/include/HKTLS.h") == true, "\(error)")
        #expect(error.message.contains("'HKSecret' (declared in "), "\(error.message)")
        #expect(error.message.contains("HKTLS.h)"), "\(error.message)")
        #expect(error.message.contains("too many arguments"), "\(error.message)")
        #expect(error.message.contains("Make the headers parse"), "\(error.message)")
        #expect(!error.message.contains("HKSession"), "\(error.message)")
    }

    @Test("modules are parsed apart: a broken one does not stop another's types", arguments: LibClangsUnderTest.all)
    func modulesApart(libclang: String) throws {
        let model = try LibClangsUnderTest.reader(libclang).read(
            types: ["HKPoint", "HKSession", "NoSuchType"], fromModules: [Self.unparsable, Self.basic])
        #expect(model.diagnostics.isEmpty, "\(model.diagnostics)")
        #expect(model.structure(named: "HKPoint") != nil)
        #expect(model.notFound == ["HKSession", "NoSuchType"])
        #expect(model.libclang != nil)
    }

    @Test("a module whose headers mention no requested name is never parsed")
    func unmentionedModuleIsSkipped() throws {
        let model = try CHeaderReader(libclangPath: "/nonexistent/libclang.so", environment: [:])
            .read(types: ["NoSuchType", "Invoice"], fromModules: [Self.unparsable, Self.basic])
        #expect(model.libclang == nil)
        #expect(model.diagnostics.isEmpty)
        #expect(model.notFound == ["Invoice", "NoSuchType"])
    }

    @Test("a type found in the broken module among others still fails", arguments: LibClangsUnderTest.all)
    func neededAmongModules(libclang: String) throws {
        let model = try LibClangsUnderTest.reader(libclang).read(
            types: ["HKPoint", "HKSecret"], fromModules: [Self.basic, Self.unparsable])
        #expect(model.structure(named: "HKPoint") != nil)
        #expect(model.hasErrors)
        #expect(model.diagnostics.allSatisfy { $0.message.contains("'HKSecret'") && !$0.message.contains("HKPoint") })
    }
}
