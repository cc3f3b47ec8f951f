import HandlerScanner
import Testing

/// The model the scanner fills in for valid declarations: ids, types, parameters, conditions.
@Suite("Declarations")
struct DeclarationTests {
    @Test func documentedExamples() {
        let source = """
            import HandlerKit

            enum Carbons {
                @handler
                static func enabled(account: Account, iqNode: IQ) { }
            }

            extension OMEMO {
                @handler(instance: "account.omemo")          // how to find the instance, from the arguments
                func bundleFetched(account: Account, jid: String, success: Bool,
                                   errorReason: String? = nil, rid: String) async throws { }
            }

            @handler(id: "cleanup.v1")                        // a stable id that survives renames
            func cleanUp(reason: String) { }
            """
        let result = scan(source, file: "Sources/App/Handlers.swift")
        #expect(result.diagnostics == [])
        let expected = [
            HandlerDeclaration(
                file: "Sources/App/Handlers.swift", line: 4, column: 5, id: "Carbons.enabled", hasExplicitID: false,
                type: "Carbons", name: "enabled", kind: .static, instance: nil, isAsync: false, isThrows: false,
                parameters: [
                    .init(
                        label: "account", name: "account", type: "Account", isOptional: false, hasDefault: false,
                        defaultValue: nil, line: 5),
                    .init(
                        label: "iqNode", name: "iqNode", type: "IQ", isOptional: false, hasDefault: false,
                        defaultValue: nil, line: 5),
                ], conditions: []),
            HandlerDeclaration(
                file: "Sources/App/Handlers.swift", line: 9, column: 5, id: "OMEMO.bundleFetched",
                hasExplicitID: false, type: "OMEMO", name: "bundleFetched", kind: .instance,
                instance: "account.omemo", isAsync: true, isThrows: true,
                parameters: [
                    .init(
                        label: "account", name: "account", type: "Account", isOptional: false, hasDefault: false,
                        defaultValue: nil, line: 10),
                    .init(
                        label: "jid", name: "jid", type: "String", isOptional: false, hasDefault: false,
                        defaultValue: nil, line: 10),
                    .init(
                        label: "success", name: "success", type: "Bool", isOptional: false, hasDefault: false,
                        defaultValue: nil, line: 10),
                    .init(
                        label: "errorReason", name: "errorReason", type: "String?", isOptional: true,
                        hasDefault: true, defaultValue: "nil", line: 11),
                    .init(
                        label: "rid", name: "rid", type: "String", isOptional: false, hasDefault: false,
                        defaultValue: nil, line: 11),
                ], conditions: []),
            HandlerDeclaration(
                file: "Sources/App/Handlers.swift", line: 14, column: 1, id: "cleanup.v1", hasExplicitID: true,
                type: nil, name: "cleanUp", kind: .global, instance: nil, isAsync: false, isThrows: false,
                parameters: [
                    .init(
                        label: "reason", name: "reason", type: "String", isOptional: false, hasDefault: false,
                        defaultValue: nil, line: 15)
                ], conditions: []),
        ]
        #expect(result.handlers == expected)
    }

    @Test func labelsAndNames() {
        let handler = onlyHandler("@handler func f(for account: Account, _ jid: String, plain: Int, _: Bool) {}")
        #expect(handler?.parameters.map(\.label) == ["for", "_", "plain", "_"])
        #expect(handler?.parameters.map(\.name) == ["account", "jid", "plain", "_"])
    }

    @Test func parameterTypesAreWrittenWithoutWhitespace() {
        let source = """
            @handler func f(
                a: [String : Int]?,
                b: Dictionary< String , [ Int ] >,
                c: ( Int , String ),
                d: @escaping @Sendable ( Int ) async throws -> Void,
                e: any Codable & Sendable,
                f: Outer . Inner /* comment */ ?,
                g: [Int]
                    .Element
            ) {}
            """
        let handler = onlyHandler(source)
        #expect(
            handler?.parameters.map(\.type) == [
                "[String:Int]?", "Dictionary<String,[Int]>", "(Int,String)", "@escaping@Sendable(Int)asyncthrows->Void",
                "anyCodable&Sendable", "Outer.Inner?", "[Int].Element",
            ])
    }

    @Test func optionality() {
        let source = """
            @handler func f(a: Int?, b: Int!, c: Optional<Int>, d: Swift.Optional<[Int]>, e: [Int?],
                            f: () -> Int?, g: (() -> Int)?, h: Optional<Int>.Wrapped, i: Int??, j: Int) {}
            """
        let handler = onlyHandler(source)
        #expect(
            handler?.parameters.map(\.isOptional) == [true, true, true, true, false, false, true, false, true, false])
        #expect(
            handler?.parameters.map(\.isMandatory) == [
                false, false, false, false, true, true, false, true, false, true,
            ])
    }

    @Test func explicitIDAndInstanceResolveEscapes() {
        let source = #"""
            struct S {
                @handler(id: "a\tb\u{1F600}\"", instance: #"dict["k"]\n"#) func f() {}
            }
            """#
        let handler = onlyHandler(source)
        #expect(handler?.id == "a\tb😀\"")
        #expect(handler?.hasExplicitID == true)
        #expect(handler?.instance == #"dict["k"]\n"#)
    }

    @Test func rawAndMultilineArguments() {
        let raw = onlyHandler(##"@handler(id: #"raw\n"#) func f() {}"##)
        #expect(raw?.id == #"raw\n"#)
        let rawEscape = onlyHandler(##"@handler(id: #"tab\#tend"#) func f() {}"##)
        #expect(rawEscape?.id == "tab\tend")
        let multiline = onlyHandler("@handler(id: \"\"\"\n    multi\n      line\n    \"\"\") func f() {}")
        #expect(multiline?.id == "multi\n  line")
    }

    @Test func conditionsAreRecorded() {
        let source = """
            #if os(Linux) // trailing comment
            @handler func a() {}
            #elseif canImport(Darwin) && DEBUG
            enum E {
                #if FEATURE
                @handler static func b() {}
                #else
                @handler static func c() {}
                #endif
            }
            #else
            @handler func d() {}
            #endif
            @handler func e() {}
            """
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.id) == ["a", "E.b", "E.c", "d", "e"])
        #expect(
            result.handlers[0].conditions == [.init(branch: .if, expression: "os(Linux)", precedingExpressions: [])])
        #expect(
            result.handlers[1].conditions == [
                .init(branch: .elseif, expression: "canImport(Darwin) && DEBUG", precedingExpressions: ["os(Linux)"]),
                .init(branch: .if, expression: "FEATURE", precedingExpressions: []),
            ])
        #expect(
            result.handlers[2].conditions.last
                == .init(branch: .else, expression: "", precedingExpressions: ["FEATURE"]))
        #expect(
            result.handlers[3].conditions == [
                .init(branch: .else, expression: "", precedingExpressions: ["os(Linux)", "canImport(Darwin) && DEBUG"])
            ])
        #expect(result.handlers[4].conditions == [])
    }

    @Test func branchesThatOpenTheSameBraceStayBalanced() {
        let source = """
            #if canImport(UIKit)
            extension Widget: UIKitThing {
            #else
            extension Widget: AppKitThing {
            #endif
                @handler static func a() {}
            }
            @handler func b() {}
            """
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.id) == ["Widget.a", "b"])
        #expect(result.handlers.map(\.type) == ["Widget", nil])
    }

    @Test func handlerOnItsOwnLinesWithCommentsBetween() {
        let source = """
            enum E {
                /// Docs.
                @handler(
                    id: "e.f" // the id
                )
                /* note */ static
                func f(
                    a: Int // first
                ) async
                  throws
                  -> Void
                {
                }
            }
            """
        let handler = onlyHandler(source)
        #expect(handler?.id == "e.f")
        #expect(handler?.line == 3)
        #expect(handler?.isAsync == true)
        #expect(handler?.isThrows == true)
        #expect(handler?.parameters.first?.line == 8)
    }

    @Test func resultsAreOrderedByLine() {
        let source = (1...50).map { "@handler func f\($0)() {}" }.joined(separator: "\n")
        let result = scan(source)
        #expect(result.handlers.map(\.line) == Array(1...50))
    }
}
