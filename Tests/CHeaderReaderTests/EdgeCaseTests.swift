import Foundation
import Testing

@testable import CHeaderReader

@Suite("edge cases")
struct EdgeCaseTests {
    static let sources = CHeaderSources(headers: [Fixtures.path("Edge/HKEdge.h")])

    @Test(
        "typedef before definition, tags nested in structs, extreme enum values, qualifiers",
        arguments: LibClangsUnderTest.all)
    func supported(libclang: String) throws {
        let model = try LibClangsUnderTest.reader(libclang)
            .read(
                types: ["HKNode", "HKOuter", "HKNested", "HKWide", "HKUnsignedWide", "HKQualified"], from: Self.sources)
        #expect(model.diagnostics.isEmpty, "\(model.diagnostics)")
        #expect(model.structure(named: "HKNode")?.shape == [FieldShape("value", .integer(.int32))])
        #expect(
            model.structure(named: "HKOuter")?.shape == [
                FieldShape("nested", .structure(name: "HKNested")),
                FieldShape("node", .structure(name: "HKNode")),
            ])
        #expect(model.structure(named: "HKNested")?.shape == [FieldShape("n", .integer(.int8))])
        #expect(model.enumeration(named: "HKWide")?.cases.map(\.value) == [.signed(.min), .signed(.max)])
        #expect(model.enumeration(named: "HKUnsignedWide")?.cases.map(\.value) == [.unsigned(0), .unsigned(.max)])
        let qualified = try #require(model.structure(named: "HKQualified"))
        #expect(
            qualified.shape == [
                FieldShape("flag", .bool),
                FieldShape("fixedLabel", .string),
                FieldShape("wide", .enumeration(name: "HKWide")),
            ])
        #expect(qualified.fields.first?.bitWidth == 1)

    }

    @Test(
        "anonymous unions, long double, function pointers and struct pointers are diagnosed",
        arguments: LibClangsUnderTest.all)
    func unsupported(libclang: String) throws {
        let model = try LibClangsUnderTest.reader(libclang)
            .read(types: ["HKAnonymousUnion", "HKMoreUnsupported"], from: Self.sources)
        #expect(model.declarations.isEmpty)
        let found = model.diagnostics.map { "\($0.typeName ?? "-").\($0.fieldName ?? "-")" }
        #expect(
            found == [
                "HKAnonymousUnion.-", "HKMoreUnsupported.precise", "HKMoreUnsupported.callback",
                "HKMoreUnsupported.next",
            ])
        #expect(
            model.diagnostics.first?.message
                == "'HKAnonymousUnion' has an anonymous union member; HandlerKit cannot convert unions")
    }

    @Test("concurrent reads with every libclang give identical models")
    func concurrentReads() async throws {
        let libclangs = LibClangsUnderTest.all
        try #require(!libclangs.isEmpty)
        let sources = CHeaderSources(headers: [Fixtures.path("Basic/include/HKKinds.h")])
        let models = try await withThrowingTaskGroup(of: (String, CHeaderModel).self) { group in
            for round in 0..<8 {
                let libclang = libclangs[round % libclangs.count]
                group.addTask {
                    (libclang, try LibClangsUnderTest.reader(libclang).read(types: ["HKEverything"], from: sources))
                }
            }
            var result: [(String, CHeaderModel)] = []
            for try await item in group { result.append(item) }
            return result
        }
        #expect(models.count == 8)
        for (libclang, model) in models {
            let reference = models.first { $0.0 == libclang }?.1
            #expect(model == reference)
            #expect(model.structure(named: "HKEverything")?.fields.count == 30)
        }
        // Every libclang gives the same model (apart from naming itself).
        let withoutLibclang = models.map { _, model in
            var copy = model
            copy.libclang = nil
            return copy
        }
        #expect(Set(withoutLibclang).count == 1)
    }
}
