import CFixtureTypes
import Foundation
import HandlerKit
import Testing

/// Compiles the generated file of `Fixture/` — handlers whose parameters are C structs and enums of the
/// CFixtureTypes target, with the `Codable` conformances handlergen generated from its header — and
/// round-trips C values through handler JSON exactly.
///
/// `Generated/HandlerTable+CTypeCodingTests.swift` is checked in; HandlerGeneratorTests regenerates it
/// with libclang from `Tests/Fixtures/CFixtureTypes/include` and compares it byte for byte.
@Suite(.serialized) struct CTypeCodingTests {
    let registry = HandlerRegistry()

    init() throws {
        try registry.register(.cTypeCodingTests)
        _ = Received.shared.take()
    }

    /// `handler` written as JSON and rebuilt from it.
    func fromJSON(_ handler: Handler) throws -> Handler {
        try Handler(json: handler.jsonString(), registry: registry)
    }

    /// A value with every field set to an edge value.
    static func edgeEverything() -> HKEverything {
        var value = HKEverything()
        value.i8 = .min
        value.u8 = .max
        value.i16 = .min
        value.u16 = .max
        value.i32 = .min
        value.u32 = .max
        value.i64 = .min
        value.u64 = .max
        value.platformLong = .min
        value.byte = 0xFF
        value.single = -0.0
        value.real = .nan
        value.flag = true
        value.small = 7
        value.color = HKColorBlue
        value.mode = .lowest
        value.origin = HKPoint(x: .leastNonzeroMagnitude, y: -.infinity, tag: -1)
        value.inner.depth = Int32.max
        value.inner.deeper.code = 0xBEEF
        store("ü!", in: &value.inner.deeper.label)
        value.flattened = 42
        value.values = (1, -2, 3)
        value.corners = (HKPoint(x: 0.1, y: 0.2, tag: 1), HKPoint(x: .greatestFiniteMagnitude, y: -0.0, tag: 2))
        value.grid = ((1, 2), (.min, .max))
        store("naïve ☃ κ", in: &value.name)
        return value
    }

    /// Writes `text` and a NUL into a char array field (test set-up; the text must fit).
    static func store<T>(_ text: String, in field: inout T) {
        withUnsafeMutableBytes(of: &field) { storage in
            storage.initializeMemory(as: UInt8.self, repeating: 0)
            storage.copyBytes(from: Array(text.utf8).prefix(storage.count - 1))
        }
    }

    /// The string in a char array field.
    static func string<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Every field of `value` exactly: floating-point values by bit pattern, so NaN and -0.0 compare.
    static func fields(_ value: HKEverything) -> [String] {
        func point(_ p: HKPoint) -> String { "(\(p.x.bitPattern) \(p.y.bitPattern) \(p.tag))" }
        return [
            "\(value.i8) \(value.u8) \(value.i16) \(value.u16) \(value.i32) \(value.u32) \(value.i64) \(value.u64)",
            "\(value.platformLong) \(value.byte) \(value.single.bitPattern) \(value.real.bitPattern) \(value.flag) \(value.small)",
            "\(value.color.rawValue) \(value.mode.rawValue) \(point(value.origin))",
            "\(value.inner.depth) \(value.inner.deeper.code) \(string(value.inner.deeper.label)) \(value.flattened)",
            "\(value.values) \(point(value.corners.0)) \(point(value.corners.1)) \(value.grid) \(string(value.name))",
        ]
    }

    @Test func cStructBoundAtCreationSurvivesJSONAndReachesTheHandler() throws {
        let point = HKPoint(x: 1.5, y: -2.25, tag: 7)
        let handler = try fromJSON(try Geometry.moveHandler(point: point, registry: registry))
        try handler.callSynchronously(["offset": 1.0])
        #expect(Received.shared.take() == ["move 2.5 -1.25 7"])
        #expect(handler.jsonString().contains(#""point":{"tag":7,"x":1.5,"y":-2.25}"#))
    }

    @Test func everyFieldKindRoundTripsExactly() throws {
        let original = Self.edgeEverything()
        var line = HKLine()
        line.state = .busy
        let handler = try Geometry.inspectHandler(
            everything: original, color: HKColorGreen, mode: .highest, line: line, registry: registry)
        let json = handler.jsonString()
        let rebuilt = try fromJSON(handler)
        #expect(rebuilt.jsonString() == json)
        try rebuilt.callSynchronously()
        #expect(Received.shared.take() == ["inspect -9223372036854775808 5 9223372036854775807 200"])
        let received = try #require(Received.shared.lastEverything())
        #expect(Self.fields(received) == Self.fields(original))
        for fragment in [
            #""i64":-9223372036854775808"#, #""u64":18446744073709551615"#, #""real":"NaN""#,
            #""single":-0.0"#, #""name":"naïve ☃ κ""#, #""label":"ü!""#, #""values":[1,-2,3]"#,
            #""grid":[[1,2],[-32768,32767]]"#, #""mode":-9223372036854775808"#, #""color":-3"#,
            #""inner":{"deeper":{"code":48879,"label":"ü!"},"depth":2147483647}"#, #""flattened":42"#,
        ] {
            #expect(json.contains(fragment), "\(fragment) not in \(json)")
        }
    }

    @Test func emptyStringsAndArraysOfStructsRoundTrip() throws {
        var original = HKEverything()
        Self.store("", in: &original.name)
        let handler = try fromJSON(
            try Geometry.inspectHandler(everything: original, mode: .off, line: HKLine(), registry: registry))
        try handler.callSynchronously(["color": HKColorRed])
        #expect(Received.shared.take() == ["inspect 0 0 0 0"])
        #expect(Self.fields(try #require(Received.shared.lastEverything())) == Self.fields(original))
        #expect(handler.jsonString().contains(#""name":"""#))

        let points = [HKPoint(x: 0, y: -0.0, tag: .min), HKPoint(x: .pi, y: 1e308, tag: .max)]
        let collect = try fromJSON(try Geometry.collectHandler(points: points, state: .idle, registry: registry))
        try collect.callSynchronously()
        #expect(Received.shared.take() == ["collect 2 0"])
    }

    /// A bound document edited by hand (or corrupted) is refused with a typed error, never truncated.
    @Test(arguments: [
        (#""name":"naïve ☃ κ""#, #""name":"0123456789abcdef""#, "does not fit char[16]"),
        (#""values":[1,-2,3]"#, #""values":[1,-2]"#, "expected an array of 3 elements, found 2"),
        (#""label":"ü!""#, #""label":"abcd""#, "does not fit char[4]"),
        (#""i8":-128"#, #""i8":-129"#, "i8"),
        (#""u64":18446744073709551615"#, #""u64":18446744073709551616"#, "u64"),
        (#""small":7"#, #""small":8"#, "does not fit a 3-bit field"),
        (#""grid":[[1,2],[-32768,32767]]"#, #""grid":[[1,2],[-32768]]"#, "expected an array of 2 elements, found 1"),
    ])
    func invalidBoundValuesAreTypedErrors(original: String, replacement: String, message: String) throws {
        let handler = try Geometry.inspectHandler(
            everything: Self.edgeEverything(), mode: .on, line: HKLine(), registry: registry)
        let json = handler.jsonString()
        #expect(json.contains(original))
        let edited = json.replacingOccurrences(of: original, with: replacement)
        do {
            _ = try Handler(json: edited, registry: registry)
            Issue.record("decoded \(replacement)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }

    @Test func enumsAreTheirRawValuesAndAnOpenEnumKeepsAnyValue() throws {
        var line = HKLine()
        line.state = .busy
        let handler = try Geometry.inspectHandler(everything: HKEverything(), mode: .on, line: line, registry: registry)
        let json = handler.jsonString()
        #expect(json.contains(#""state":200"#))
        #expect(throws: HandlerError.self) {
            try Handler(json: json.replacingOccurrences(of: #""state":200"#, with: #""state":256"#), registry: registry)
        }
        // An open (NS_ENUM-style) enum takes any raw value, as in C.
        let open = try Handler(
            json: json.replacingOccurrences(of: #""mode":1"#, with: #""mode":12"#), registry: registry)
        try open.callSynchronously()
        #expect(Received.shared.take() == ["inspect 0 0 12 200"])
    }

    @Test func charArrayWithoutTerminatingNULIsNotEncoded() {
        var value = HKEverything()
        withUnsafeMutableBytes(of: &value.name) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0x41) }
        #expect(throws: HandlerError.self) {
            try Geometry.inspectHandler(everything: value, mode: .on, line: HKLine(), registry: registry)
        }
    }

    @Test func constCharPointersAreStringsOrNull() throws {
        let text = "héllo ☃"
        let empty = ""
        // Binding encodes at once, while the pointers are valid.
        let handler = try text.withCString { textPointer in
            try empty.withCString { emptyPointer in
                try Geometry.labelHandler(
                    label: HKLabel(text: textPointer, notes: (nil, emptyPointer), size: 3), registry: registry)
            }
        }
        let json = handler.jsonString()
        #expect(json.contains(#""label":{"notes":[null,""],"size":3,"text":"héllo ☃"}"#), "\(json)")
        let rebuilt = try fromJSON(handler)
        try rebuilt.callSynchronously()
        #expect(Received.shared.take() == ["label héllo ☃ NULL  3"])
        // Decoding the same text twice points to the same stored copy.
        try fromJSON(rebuilt).callSynchronously()
        #expect(Received.shared.take() == ["label héllo ☃ NULL  3"])
    }

    @Test func aStringWithNULCannotBeAConstCharPointer() throws {
        let json =
            #"{"bound":{"label":{"notes":[null,null],"size":0,"text":"a\u0000b"}},"id":"Geometry.label","version":1}"#
        let error = #expect(throws: HandlerError.self) { try Handler(json: json, registry: registry) }
        #expect("\(String(describing: error))".contains("string contains NUL, which a const char * cannot hold"))
    }
}
