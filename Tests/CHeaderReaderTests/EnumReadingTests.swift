import Foundation
import Testing

@testable import CHeaderReader

@Suite("enums")
struct EnumReadingTests {
    @Test("typedef enum : uint8_t {…} and a tagged enum with negative values", arguments: LibClangsUnderTest.all)
    func plainEnums(libclang: String) throws {
        let sources = try CHeaderSources.module(includeDirectories: [Fixtures.path("Basic/include")])
        let model = try LibClangsUnderTest.reader(libclang).read(types: ["HKShape", "HKLevel"], from: sources)
        #expect(model.diagnostics.isEmpty, "\(model.diagnostics)")

        let shape = try #require(model.enumeration(named: "HKShape"))
        #expect(shape.underlyingType == .uint8)
        #expect(shape.underlyingTypeSpelling == "uint8_t")
        #expect(
            shape.cases == [
                CEnumCase(name: "HKShapeCircle", value: .unsigned(0)),
                CEnumCase(name: "HKShapeSquare", value: .unsigned(7)),
                CEnumCase(name: "HKShapeLast", value: .unsigned(255)),
            ])
        #expect(shape.location?.file.hasSuffix("HKKinds.h") == true)

        let level = try #require(model.enumeration(named: "HKLevel"))
        #expect(level.underlyingType == .int32)
        #expect(level.cases.map(\.value) == [.signed(-1), .signed(0), .signed(2_147_483_647)])
    }

    static let macroSources = CHeaderSources(
        headers: [Fixtures.path("Macros/include/HKColor.h")],
        includeDirectories: [Fixtures.path("Basic/include")],
        language: .objectiveC)

    @Test(
        "NS_ENUM, CF_ENUM and NS_OPTIONS defined by macros in an included header, and a struct using them",
        arguments: LibClangsUnderTest.all)
    func macroEnums(libclang: String) throws {
        let sources = Self.macroSources
        let model = try LibClangsUnderTest.reader(libclang)
            .read(types: ["HKColor", "HKSmall", "HKStyle", "HKPaint"], from: sources)
        #expect(model.diagnostics.isEmpty, "\(model.diagnostics)")

        let color = try #require(model.enumeration(named: "HKColor"))
        #expect(color.underlyingType == CIntegerType(isSigned: true, bits: MemoryLayout<CLong>.size * 8))
        #expect(color.underlyingTypeSpelling == "NSInteger")
        #expect(
            color.cases == [
                CEnumCase(name: "HKColorRed", value: .signed(-1)),
                CEnumCase(name: "HKColorGreen", value: .signed(0)),
                CEnumCase(name: "HKColorBlue", value: .signed(16)),
            ])
        // The location is where NS_ENUM is used, not inside the macro.
        #expect(color.location?.file.hasSuffix("Macros/include/HKColor.h") == true)
        #expect(color.location?.line == 10)

        let small = try #require(model.enumeration(named: "HKSmall"))
        #expect(small.underlyingType == .uint8)
        #expect(small.cases.map(\.value) == [.unsigned(1), .unsigned(255)])

        let style = try #require(model.enumeration(named: "HKStyle"))
        #expect(style.underlyingType == CIntegerType(isSigned: false, bits: MemoryLayout<CUnsignedLong>.size * 8))
        #expect(style.cases.map(\.value) == [.unsigned(1), .unsigned(1 << 63)])

        let paint = try #require(model.structure(named: "HKPaint"))
        #expect(
            paint.shape == [
                FieldShape("color", .enumeration(name: "HKColor")),
                FieldShape("style", .enumeration(name: "HKStyle")),
                FieldShape("name", .characterArray(count: 8)),
                FieldShape("count", .integer(CIntegerType(isSigned: true, bits: MemoryLayout<CLong>.size * 8))),
                FieldShape("at", .structure(name: "HKPoint")),
            ])
        #expect(model.declarations.map(\.name) == ["HKColor", "HKPaint", "HKPoint", "HKSmall", "HKStyle"])
    }

    @Test(
        "in C, Apple's NS_ENUM is an integer typedef, as Swift without Objective-C interop imports it",
        arguments: LibClangsUnderTest.all)
    func macroEnumsInC(libclang: String) throws {
        var sources = Self.macroSources
        sources.language = .c
        let model = try LibClangsUnderTest.reader(libclang).read(types: ["HKColor", "HKPaint"], from: sources)
        #expect(model.diagnostics.isEmpty, "\(model.diagnostics)")
        #expect(model.notFound == ["HKColor"])
        let paint = try #require(model.structure(named: "HKPaint"))
        let long = CIntegerType(isSigned: true, bits: MemoryLayout<CLong>.size * 8)
        let unsignedLong = CIntegerType(isSigned: false, bits: MemoryLayout<CUnsignedLong>.size * 8)
        #expect(
            paint.shape.prefix(2) == [FieldShape("color", .integer(long)), FieldShape("style", .integer(unsignedLong))])
        #expect(paint.fields.first?.cTypeSpelling == "HKColor")
    }
}
