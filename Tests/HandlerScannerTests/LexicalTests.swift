import HandlerScanner
import Testing

/// Every lexical case: text in comments and strings is never reported, and real
/// declarations after tricky tokens are still found.
@Suite("Lexical cases")
struct LexicalTests {
    @Test func lineAndDocCommentsHideHandlers() {
        let source = """
            // @handler static func a() {}
            /// @handler static func b() {}
            //! @handler func c() {}
            @handler func real() {}
            """
        #expect(ids(source) == ["real"])
        #expect(scan(source).handlers.first?.line == 4)
    }

    @Test func nestedBlockCommentsHideHandlers() {
        let source = """
            /* outer /* inner @handler func a() {} */ still comment @handler func b() {} */
            /** doc
              @handler func c() {}
            */
            @handler func real() {}
            """
        #expect(ids(source) == ["real"])
        #expect(scan(source).handlers.first?.line == 5)
    }

    @Test func unterminatedCommentRunsToEndOfFile() {
        #expect(ids("@handler func a() {}\n/* /* */ @handler func b() {}") == ["a"])
    }

    @Test func stringLiteralsHideHandlers() {
        let source = #"""
            let a = "@handler func a() {}"
            let b = "escaped \" quote @handler func b() {}"
            let c = "backslash \\" ; @handler func real1() {}
            let d = """
                @handler func d() {}
                """
            let e = """
                escaped triple \""" @handler func e() {}
                """
            @handler func real2() {}
            """#
        #expect(ids(source) == ["real1", "real2"])
    }

    @Test func interpolationWithNestedStringsAndParentheses() {
        let source = #"""
            let a = "x \(f("(", ")", g(h(1)))) @handler func a() {}"
            let b = "\("\("nested @handler func b() {}")") @handler func c() {}"
            let c = "\({ () -> String in "}" }()) @handler func d() {}"
            let d = "\(x /* ) comment */ + 1) @handler func e() {}"
            let e = """
                \(f(""" 
                   inner @handler func f() {}
                   """)) @handler func g() {}
                """
            @handler func real() {}
            """#
        #expect(ids(source) == ["real"])
    }

    @Test func rawStringsWithAnyNumberOfHashes() {
        let source = ###"""
            let a = #"raw " quote \" @handler func a() {}"#
            let b = ##"with "# inside @handler func b() {}"##
            let c = #"interpolated \#(f(")")) @handler func c() {}"#
            let d = #"not interpolated \(@handler func d() {}"#
            let e = #"""
                multi-line raw """ @handler func e() {}
                """#
            let f = ##"""
                """# still inside @handler func f() {}
                """##
            @handler func real() {}
            """###
        #expect(ids(source) == ["real"])
        #expect(scan(source).handlers.first?.line == 11)
    }

    @Test func regexLiteralsHideHandlers() {
        let source = #"""
            let a = /"@handler func a() {}/
            let b = #/ " @handler func b() {} /#
            let c = ##/ /# " @handler func c() {} /##
            let d = #/
              "  @handler func d() {}
              /#
            let e = x.split(separator: /\/"/)
            @handler func real() {}
            """#
        #expect(ids(source) == ["real"])
        #expect(scan(source).handlers.first?.line == 8)
    }

    @Test func slashAsDivisionAndOperatorIsNotARegex() {
        let source = """
            let a = b /c; @handler func m1() {}; let q = "/"
            let d = (e / 2) /f; @handler func m2() {}; let r = "/"
            let g = h!/i; @handler func m3() {}; let s = "/"
            x /= 2
            let z = values.reduce(1, /) ; @handler func m4() {} ; let w = "/"
            @handler func real() {}
            """
        #expect(ids(source) == ["m1", "m2", "m3", "m4", "real"])
    }

    @Test func operatorsWithSlashDoNotStartARegex() {
        let source = """
            infix operator /^/ : MultiplicationPrecedence
            struct V {
                static func / (lhs: V, rhs: V) -> V { lhs }
                static func /^/ (lhs: V, rhs: V) -> V { lhs }
                @handler static func real() {}
            }
            """
        #expect(ids(source) == ["V.real"])
    }

    @Test func prefixSlashOperatorInCallsIsNotARegex() {
        // swift-case-paths' `/Enum.case` prefix operator: the `)` after `$0 }` is unbalanced for a regex.
        let source = """
            struct S {
                let r = results.prefix(while: { /Result.success ~= $0 }).compactMap(/Result.success)
                let p = (/Foo.foo .. /Foo.bar)
                @handler static func m() {}
            }
            @handler func after() {}
            """
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.id) == ["S.m", "after"])
    }

    @Test func rawStringsThatLookLikeMultilineDelimiters() {
        let source = ###"""
            struct S {
                let a = #"""#; @handler static func m1() {}
                let b = ###"""abc"###; @handler static func m2() {}
                let c = #"""
                    """ } @handler static func hidden() {}
                    """#
                @handler static func m3() {}
            }
            """###
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.id) == ["S.m1", "S.m2", "S.m3"])
    }

    @Test func backtickedAndUnicodeIdentifiers() {
        let source = """
            enum `Type` {
                @handler static func `default`(`for` value: Int, `class`: String) {}
            }
            enum Ünïcødé {
                @handler static func grüße(名前 name: String, π: Double) {}
            }
            """
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.id) == ["Type.default", "Ünïcødé.grüße"])
        #expect(result.handlers.first?.type == "`Type`")
        #expect(result.handlers.first?.name == "default")
        #expect(result.handlers.first?.parameters.map(\.label) == ["for", "class"])
        #expect(result.handlers.first?.parameters.map(\.name) == ["value", "class"])
        #expect(result.handlers.last?.parameters.map(\.label) == ["名前", "π"])
        #expect(result.handlers.last?.parameters.map(\.name) == ["name", "π"])
    }

    @Test func attributesWithArgumentsBeforeAndAfterHandler() {
        let source = """
            enum E {
                @available(iOS 16, macOS 13, *)
                @MainActor
                @handler(id: "e.one")
                @inlinable
                public static func one() {}

                @objc(two:) @handler(id: "e.two") nonisolated static func two() {}
            }
            """
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.id) == ["e.one", "e.two"])
        #expect(result.handlers.map(\.line) == [4, 8])
        #expect(result.handlers.map(\.column) == [5, 17])
    }

    @Test func otherAttributesNamedLikeHandlerAreIgnored() {
        #expect(ids("@handlerX func a() {}\n@my.handler func b() {}\n@ handler func c() {}") == [])
        #expect(ids("@HandlerKit.handler func a() {}") == ["a"])
    }

    @Test func genericClausesWithShiftOperatorsInOtherDeclarations() {
        let source = """
            struct G<T: Collection<Array<Int>>> where T.Element: Equatable {
                func f<U: Sequence>(_ u: U) -> Array<Array<Int>> where U.Element == Array<Set<Int>> { [] }
            }
            struct S {
                var x: Dictionary<String, Array<Int>> { [:] }
                @handler static func real(values: Array<Array<Int>>, map: [String: Set<Array<Int>>]) {}
            }
            """
        let handler = onlyHandler(source)
        #expect(handler?.id == "S.real")
        #expect(handler?.parameters.map(\.type) == ["Array<Array<Int>>", "[String:Set<Array<Int>>]"])
    }

    @Test func defaultValuesWithClosuresStringsAndParentheses() {
        let source = #"""
            enum E {
                @handler static func f(
                    a: Int = (1 + (2 * 3)),
                    b: String = "a, b) {",
                    c: () -> Void = { print(")"); let _ = [1, 2] },
                    d: [String: Int] = ["x": 1, "y": 2],
                    e: Dictionary<String, Int> = Dictionary<String, Int>(),
                    f: Bool = 1 < 2,
                    g: Int = 3
                ) {}
            }
            """#
        let handler = onlyHandler(source)
        #expect(handler?.parameters.map(\.name) == ["a", "b", "c", "d", "e", "f", "g"])
        #expect(handler?.parameters.allSatisfy(\.hasDefault) == true)
        #expect(
            handler?.parameters.map(\.defaultValue) == [
                "(1 + (2 * 3))", #""a, b) {""#, #"{ print(")"); let _ = [1, 2] }"#, #"["x": 1, "y": 2]"#,
                "Dictionary<String, Int>()", "1 < 2", "3",
            ])
        #expect(handler?.parameters[2].type == "()->Void")
        #expect(handler?.parameters[2].isOptional == false)
    }

    @Test func whereClausesOnTypesAndExtensions() {
        let source = """
            extension Array where Element == Int {
                @handler static func sum(values: [Int]) {}
            }
            struct Box<T> where T: Equatable { }
            @handler func after() {}
            """
        #expect(ids(source) == ["Array.sum", "after"])
    }

    @Test func extensionsOfDottedTypesAndNestedTypes() {
        let source = """
            extension Outer.Inner {
                @handler static func a() {}
                struct Deeper {
                    @handler static func b() {}
                    enum Deepest { @handler static func c() {} }
                    class K { @handler class func d() {} }
                    actor A { @handler static func e() {} }
                }
                @handler static func f() {}
            }
            extension Swift . Array : CustomThing where Element: Equatable {
                @handler static func g() {}
            }
            final class Top: NSObject, P {
                class var shared: Top { Top() }
                class func helper() {}
                @handler static func h() {}
            }
            """
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(
            result.handlers.map(\.id) == [
                "Outer.Inner.a", "Outer.Inner.Deeper.b", "Outer.Inner.Deeper.Deepest.c", "Outer.Inner.Deeper.K.d",
                "Outer.Inner.Deeper.A.e", "Outer.Inner.f", "Swift.Array.g", "Top.h",
            ])
        #expect(
            result.handlers.map(\.type) == [
                "Outer.Inner", "Outer.Inner.Deeper", "Outer.Inner.Deeper.Deepest", "Outer.Inner.Deeper.K",
                "Outer.Inner.Deeper.A", "Outer.Inner", "Swift.Array", "Top",
            ])
        #expect(result.handlers.allSatisfy { $0.kind == .static })
    }

    @Test func staticClassAndInstanceAndGlobalKinds() {
        let source = """
            class C {
                @handler static func s() {}
                @handler class func c() {}
                @handler(instance: "account.c") func i() {}
                @handler(instance: "x") final func j() {}
            }
            @handler func g() {}
            """
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.kind) == [.static, .static, .instance, .instance, .global])
        #expect(result.handlers.map(\.type) == ["C", "C", "C", "C", nil])
        #expect(result.handlers[2].instance == "account.c")
    }

    @Test func effects() {
        let source = """
            enum E {
                @handler static func a() async {}
                @handler static func b() throws {}
                @handler static func c() async throws -> Void {}
                @handler static func d(f: () throws -> Void) rethrows {}
                @handler static func e() throws(MyError) {}
                @handler static func f() async throws(Outer.Failure) -> Never { fatalError() }
                @handler static func g() -> Void {}
                @handler static func h() -> () {}
            }
            """
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.isAsync) == [true, false, true, false, false, true, false, false])
        #expect(result.handlers.map(\.isThrows) == [false, true, true, true, true, true, false, false])
    }

    /// A handler's result would have no caller to go to: a return type other than `Void` (or `Never`)
    /// is an error at the arrow that names the type as written.
    @Test func returnValuesAreRefused() {
        let source = """
            enum E {
                @handler static func c() async throws -> Int { 1 }
                @handler static func f() async throws(Outer.Failure) -> [String: Int] { [:] }
                @handler static func i() -> some Collection<Int> { [] }
                @handler static func ok() -> Swift.Void {}
            }
            """
        let result = scan(source)
        #expect(result.handlers.map(\.name) == ["ok"])
        #expect(result.diagnostics.map(\.severity) == [.error, .error, .error])
        #expect(result.diagnostics.map(\.line) == [2, 3, 4])
        #expect(result.diagnostics.map(\.column) == [43, 58, 30])
        let messages = result.diagnostics.map(\.message)
        #expect(
            messages.first?.hasPrefix("@handler function 'c' returns Int, but a handler's result has nowhere to go")
                == true)
        #expect(messages.dropFirst().first?.contains("returns [String: Int],") == true)
        #expect(messages.last?.contains("returns some Collection<Int>,") == true)
        #expect(messages.allSatisfy { $0.contains("return Void") })
    }

    @Test func operatorDeclarationsDoNotConfuseTheScanner() {
        let source = """
            struct V {
                static func < (lhs: V, rhs: V) -> Bool { true }
                static func >> (lhs: V, rhs: Int) -> V { lhs }
                static prefix func - (v: V) -> V { v }
                static func == (lhs: V, rhs: V) -> Bool { true }
                @handler static func after(v: Int) {}
            }
            """
        #expect(ids(source) == ["V.after"])
    }

    @Test func keywordsAsMemberNamesAndLabels() {
        let source = """
            enum E {
                static let x = Foo.init(class: 1).struct.enum
                @handler static func a(in value: Int, for other: String) {}
            }
            """
        let handler = onlyHandler(source)
        #expect(handler?.id == "E.a")
        #expect(handler?.parameters.map(\.label) == ["in", "for"])
    }

    @Test func closuresAndComputedPropertiesInTypes() {
        let source = """
            struct S {
                var computed: Int { get { 1 } set { } }
                let closure = { (x: Int) -> Int in x }
                lazy var l: [Int] = { [1] }()
                @handler static func real() {}
            }
            """
        #expect(ids(source) == ["S.real"])
    }

    @Test func byteOrderMarkShebangAndCRLF() {
        let source = "\u{FEFF}#!/usr/bin/env swift\r\n// c\r\n@handler func a() {}\r\n@handler\r\nfunc b() {}\r\n"
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.id) == ["a", "b"])
        #expect(result.handlers.map(\.line) == [3, 4])
    }

    @Test func numbersWithExponentsAndRanges() {
        let source = """
            let a = 1e-3 / 2, b = 0x1p-2, c = 0..<5, d = 1...3, e = 1_000.5
            @handler func real() {}
            """
        #expect(ids(source) == ["real"])
    }

    @Test func keyPathsAndMacros() {
        let source = """
            let k = \\Foo.bar
            #warning("@handler func a() {}")
            #Preview { Text("x") }
            @handler func real() {}
            """
        #expect(ids(source) == ["real"])
    }
}

/// Identifiers are lexed eight bytes at a time: every length, alignment and byte class, ended by a
/// byte just outside an identifier byte range, must give one token with exactly the identifier's text.
@Suite("Identifier lengths and alignments")
struct IdentifierLexingTests {
    /// Letters at both ends of both cases, digits, `_`, `$` and a two-byte character.
    private static let alphabet = Array("aZ_9$zA0mé")

    private static func name(length: Int) -> String {
        String((0..<length).map { $0 == 0 ? "a" : alphabet[$0 % alphabet.count] })
    }

    @Test(arguments: 1...19)
    func anIdentifierEndsAtTheFirstByteOutsideIt(length: Int) {
        let name = Self.name(length: length)
        for padding in 0..<8 {
            let spaces = String(repeating: " ", count: padding)
            // Ended by `(`, ` ` and `:` (just after the digits), at every alignment within a word.
            let source = "@handler\(spaces) func \(name)(\(spaces)\(name) \(name): Int) {}\n"
            let handler = onlyHandler(source)
            #expect(handler?.name == name, "\(source)")
            #expect(handler?.parameters.first?.label == name, "\(source)")
            #expect(handler?.parameters.first?.name == name, "\(source)")
        }
    }
}

/// String literals' text is skipped eight bytes at a time: at every length and alignment, an escaped
/// quote, the closing quote and the line break that ends an unterminated string must each be seen.
@Suite("String literal lengths and alignments")
struct StringLexingTests {
    @Test(arguments: 0...17)
    func escapesClosingQuotesAndLineBreaksAreSeenAtEveryAlignment(length: Int) {
        let text = String(repeating: "é", count: length / 2) + String(repeating: "x", count: length % 2)
        for padding in 0..<8 {
            let spaces = String(repeating: " ", count: padding)
            let escaped =
                "let s\(spaces) = \"\(text)\\\"@handler func fake() {}\\\\\(text)\"\n@handler func real() {}\n"
            #expect(ids(escaped) == ["real"], "\(escaped)")
            let unterminated = "let s\(spaces) = \"\(text)\n@handler func real() {}\n"
            #expect(ids(unterminated) == ["real"], "\(unterminated)")
            let interpolated =
                "let s\(spaces) = \"\(text)\\(\"@handler func fake() {}\")\(text)\"\n@handler func real() {}\n"
            #expect(ids(interpolated) == ["real"], "\(interpolated)")
        }
    }
}
