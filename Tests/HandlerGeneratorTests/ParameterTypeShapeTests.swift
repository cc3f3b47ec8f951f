import Testing

@testable import HandlerGenerator

/// What the baseline check reads from a parameter type as the scanner reports it (whitespace removed).
@Suite struct ParameterTypeShapeTests {
    @Test(arguments: [
        ("Int?", "Int"), ("Optional<Int>", "Int"), ("Swift.Int", "Int"), ("Int!", "Int"),
        ("Array<String>", "[String]"), ("[String]?", "[String]"), ("Dictionary<String,Int>", "[String:Int]"),
        ("[Swift.String:[Int]]", "[String:[Int]]"), ("@escaping()->Void", "()->Void"),
    ])
    func spellingsOfOneTypeAreOneType(written: String, canonical: String) {
        #expect(ParameterTypeShape.canonical(written) == canonical)
    }

    @Test(
        arguments: [
            ("Int", true), ("[String:[Double]]?", true), ("Handler", true), ("Set<UUID>", true),
            ("@escaping()->Void", false), ("((Int)->Void)?", false), ("[()->Void]", false), ("anySendable", false),
            ("Any", false), ("(Int,String)", false), ("Account.Type", false),
            ("Account", nil), ("[Account]", nil), ("[Int:String]", nil),
        ] as [(String, Bool?)])
    func bindabilityIsKnownOnlyWhereTheTextTellsIt(type: String, bindable: Bool?) {
        #expect(ParameterTypeShape(type: type).isBindable == bindable)
    }

    @Test func jsonShapesDifferOnlyWhenBothAreKnown() {
        func differs(_ old: String, _ new: String) -> Bool {
            ParameterTypeShape(type: old).certainlyDiffers(from: ParameterTypeShape(type: new))
        }
        #expect(differs("Int", "String"))
        #expect(differs("[Int]", "[Bool]"))
        #expect(differs("[String:Int]", "Int"))
        #expect(!differs("Int", "Double"))
        #expect(!differs("Double", "Int"))
        #expect(!differs("Account", "String"))
        #expect(!differs("Int", "Int64"))
        #expect(ParameterTypeShape(type: "Int").isWidened(to: ParameterTypeShape(type: "Double")))
        #expect(!ParameterTypeShape(type: "Double").isWidened(to: ParameterTypeShape(type: "Int")))
        #expect(!ParameterTypeShape(type: "[Account]").isWidened(to: ParameterTypeShape(type: "[User]")))
    }
}
