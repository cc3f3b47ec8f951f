import Testing

@testable import HandlerGenerator

/// The scanner reports types with all whitespace removed; the generator spells them back.
@Suite struct SwiftTypeTests {
    @Test(arguments: [
        ("Account", "Account"),
        ("[String:Int]?", "[String: Int]?"),
        ("anyP", "any P"),
        ("[anyCodable&Sendable]", "[any Codable & Sendable]"),
        ("any(P&Q)", "any (P & Q)"),
        ("@escaping@Sendable(Int)->Void", "@escaping @Sendable (Int) -> Void"),
        ("()asyncthrows->Int", "() async throws -> Int"),
        ("@convention(c)(Int32)->Void", "@convention(c) (Int32) -> Void"),
        ("(a:Int,b:String)", "(a: Int, b: String)"),
        ("Result<Int,anyError>", "Result<Int, any Error>"),
        ("anything", "anything"),
        ("Outer.Inner", "Outer.Inner"),
        // The scanner keeps a single space where Swift needs one.
        ("@escaping @Sendable (Int)->Int", "@escaping @Sendable (Int) -> Int"),
        ("any P", "any P"),
        ("[any Codable&Sendable]", "[any Codable & Sendable]"),
        ("(Int)async throws->Int", "(Int) async throws -> Int"),
        ("some Sequence<Int>", "some Sequence<Int>"),
        ("@MainActor @Sendable ()->Void", "@MainActor @Sendable () -> Void"),
    ])
    func respacing(scanned: String, spelled: String) {
        #expect(SwiftType(scanned: scanned).spelled == spelled)
    }

    @Test(arguments: [
        ("Int?", "Int"), ("Int!", "Int"), ("Optional<[Int]>", "[Int]"), ("(()->Void)?", "(() -> Void)"),
        ("Int??", "Int?"),
    ])
    func wrappedType(scanned: String, wrapped: String) {
        #expect(SwiftType(scanned: scanned).wrapped?.spelled == wrapped)
    }

    @Test func nonOptionalsHaveNoWrappedType() {
        #expect(SwiftType(scanned: "Optional<Int>.Wrapped").wrapped == nil)
        #expect(SwiftType(scanned: "Array<Int>").wrapped == nil)
    }

    @Test(arguments: [
        ("Int", false, "Int?"), ("Int?", true, "Int?"), ("Int!", true, "Int?"), ("anyP", false, "(any P)?"),
        ("@escaping()->Void", false, "(() -> Void)?"), ("[Int]", false, "[Int]?"), ("P&Q", false, "(P & Q)?"),
        ("@escaping @Sendable (Int)->Int", false, "(@Sendable (Int) -> Int)?"), ("any P", false, "(any P)?"),
        ("Optional<String>", true, "String?"),
    ])
    func referenceParameterType(scanned: String, isOptional: Bool, expected: String) {
        #expect(SwiftType(scanned: scanned).optionalType(isOptional: isOptional) == expected)
    }

    @Test func moduleNamesInLowerCamelCase() {
        #expect(SwiftSource.lowerCamelCase("Chat") == "chat")
        #expect(SwiftSource.lowerCamelCase("HandlerKitDemo") == "handlerKitDemo")
        #expect(SwiftSource.lowerCamelCase("URLTools") == "urlTools")
        #expect(SwiftSource.lowerCamelCase("SQL") == "sql")
        #expect(SwiftSource.lowerCamelCase("my_module") == "my_module")
        #expect(SwiftSource.identifier("default") == "`default`")
    }
}
