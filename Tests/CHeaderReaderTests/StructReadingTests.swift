import Foundation
import Testing

@testable import CHeaderReader

@Suite("structs")
struct StructReadingTests {
    static let basic = CHeaderSources(
        headers: [Fixtures.path("Basic/include/HKKinds.h")],
        includeDirectories: [Fixtures.path("Basic/include")])

    @Test("typedef struct { double x; double y; int32_t tag; } HKPoint", arguments: LibClangsUnderTest.all)
    func point(libclang: String) throws {
        let sources = try CHeaderSources.module(includeDirectories: [Fixtures.path("Basic/include")])
        let model = try LibClangsUnderTest.reader(libclang).read(types: ["HKPoint"], from: sources)
        #expect(model.diagnostics.isEmpty, "\(model.diagnostics)")
        #expect(model.libclang?.path == libclang)
        let point = try #require(model.structure(named: "HKPoint"))
        #expect(point.name == "HKPoint")
        #expect(
            point.shape == [
                FieldShape("x", .floatingPoint(bits: 64)),
                FieldShape("y", .floatingPoint(bits: 64)),
                FieldShape("tag", .integer(.int32)),
            ])
        #expect(point.fields.map(\.cTypeSpelling) == ["double", "double", "int32_t"])
        #expect(point.location?.file.hasSuffix("Basic/include/HKPoint.h") == true)
        #expect(point.location?.line == 6)
        #expect(point.fields.last?.location?.line == 9)
        #expect(model.declarations.map(\.name) == ["HKPoint"])
        #expect(model.resolvedNames == ["HKPoint": "HKPoint"])
        #expect(model.notFound.isEmpty)
    }

    @Test("every field kind, in declaration order", arguments: LibClangsUnderTest.all)
    func everything(libclang: String) throws {
        let model = try LibClangsUnderTest.reader(libclang).read(types: ["HKEverything"], from: Self.basic)
        #expect(model.diagnostics.isEmpty, "\(model.diagnostics)")
        let value = try #require(model.structure(named: "HKEverything"))
        let expected: [FieldShape] = [
            FieldShape("i8", .integer(.int8)),
            FieldShape("i16", .integer(.int16)),
            FieldShape("i32", .integer(.int32)),
            FieldShape("i64", .integer(.int64)),
            FieldShape("u8", .integer(.uint8)),
            FieldShape("u16", .integer(.uint16)),
            FieldShape("u32", .integer(.uint32)),
            FieldShape("u64", .integer(.uint64)),
            FieldShape("l", .integer(CIntegerType(isSigned: true, bits: MemoryLayout<CLong>.size * 8))),
            FieldShape("ull", .integer(.uint64)),
            FieldShape("c", .integer(.char)),
            FieldShape("f", .floatingPoint(bits: 32)),
            FieldShape("d", .floatingPoint(bits: 64)),
            FieldShape("flag", .bool),
            FieldShape("shape", .enumeration(name: "HKShape")),
            FieldShape("level", .enumeration(name: "HKLevel")),
            FieldShape("origin", .structure(name: "HKPoint")),
            FieldShape("line", .structure(name: "HKLine")),
            FieldShape("size", .structure(name: "HKSize_")),
            FieldShape("inner", .anonymousStructure(CStruct(name: nil, fields: []))),
            FieldShape("lat", .floatingPoint(bits: 64)),
            FieldShape("lon", .floatingPoint(bits: 64)),
            FieldShape("values", .array(element: .integer(.int32), count: 4)),
            FieldShape("matrix", .array(element: .array(element: .floatingPoint(bits: 64), count: 3), count: 2)),
            FieldShape("corners", .array(element: .structure(name: "HKPoint"), count: 2)),
            FieldShape("name", .characterArray(count: 16)),
            FieldShape("label", .string),
            FieldShape("labels", .array(element: .string, count: 2)),
            FieldShape("mode", .integer(.uint32)),
            FieldShape("bits", .integer(.uint32)),
        ]
        // The anonymous nested struct is compared on its own below.
        let actual = value.shape.map { field -> FieldShape in
            if case .anonymousStructure = field.type {
                return FieldShape(field.name, .anonymousStructure(CStruct(name: nil, fields: [])))
            }
            return field
        }
        #expect(actual == expected)

        let inner = try #require(value.fields.first { $0.name == "inner" })
        guard case .anonymousStructure(let innerStruct) = inner.type else {
            Issue.record("inner is \(inner.type)")
            return
        }
        #expect(innerStruct.name == nil)
        #expect(innerStruct.shape.map(\.name) == ["a", "innermost"])
        guard case .anonymousStructure(let innermostStruct)? = innerStruct.fields.last?.type else {
            Issue.record("innermost is \(String(describing: innerStruct.fields.last?.type))")
            return
        }
        #expect(innermostStruct.shape == [FieldShape("deep", .integer(.uint16))])

        #expect(value.fields.first { $0.name == "bits" }?.bitWidth == 3)
        #expect(value.fields.first { $0.name == "u32" }?.bitWidth == nil)
        #expect(value.fields.first { $0.name == "label" }?.cTypeSpelling == "const char *")

        // The named types it uses come along, sorted by name.
        #expect(
            model.declarations.map(\.name) == ["HKEverything", "HKLevel", "HKLine", "HKPoint", "HKShape", "HKSize_"])
        let line = try #require(model.structure(named: "HKLine"))
        #expect(
            line.shape == [
                FieldShape("from", .structure(name: "HKPoint")), FieldShape("to", .structure(name: "HKPoint")),
            ])
    }

    @Test("a typedef of a tagged struct resolves to the tag", arguments: LibClangsUnderTest.all)
    func typedefOfTaggedStruct(libclang: String) throws {
        let model = try LibClangsUnderTest.reader(libclang).read(types: ["HKSize", "HKLine"], from: Self.basic)
        #expect(model.diagnostics.isEmpty, "\(model.diagnostics)")
        #expect(model.resolvedNames == ["HKSize": "HKSize_", "HKLine": "HKLine"])
        let size = try #require(model.structure(named: "HKSize"))
        #expect(size.name == "HKSize_")
        #expect(
            size.shape == [
                FieldShape("width", .floatingPoint(bits: 32)), FieldShape("height", .floatingPoint(bits: 32)),
            ])
    }

    @Test(
        "the same request gives the same model, whatever the order of the names",
        arguments: LibClangsUnderTest.all)
    func deterministic(libclang: String) throws {
        let reader = LibClangsUnderTest.reader(libclang)
        let names = ["HKEverything", "HKShape", "NotAType", "HKSize"]
        let first = try reader.read(types: names, from: Self.basic)
        let second = try reader.read(types: names.reversed(), from: Self.basic)
        #expect(first == second)
        #expect(first.notFound == ["NotAType"])
    }
}
