import HandlerScanner
import Testing

/// Every misuse of `@handler`: file, line, column, and a message that says how to fix it. A
/// declaration with an error is not reported as a handler.
@Suite("Diagnostics")
struct DiagnosticTests {
    private func expectError(
        _ source: String, line: Int, column: Int, _ fragments: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = scan(source)
        #expect(result.handlers.isEmpty, sourceLocation: sourceLocation)
        #expect(result.diagnostics.count == 1, "\(result.diagnostics)", sourceLocation: sourceLocation)
        guard let diagnostic = result.diagnostics.first else { return }
        #expect(diagnostic.file == "T.swift", sourceLocation: sourceLocation)
        #expect(diagnostic.severity == .error, sourceLocation: sourceLocation)
        #expect(diagnostic.line == line, "line", sourceLocation: sourceLocation)
        #expect(diagnostic.column == column, "column", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(diagnostic.message.contains(fragment), "\(diagnostic.message)", sourceLocation: sourceLocation)
        }
    }

    @Test func privateAndFileprivateHandlers() {
        expectError(
            "enum E {\n    @handler private static func a() {}\n}", line: 2, column: 14,
            ["cannot be private", "remove 'private'"])
        expectError(
            "@handler\nfileprivate func b() {}", line: 2, column: 1, ["cannot be fileprivate", "remove 'fileprivate'"])
        let fix = scan("@handler private func c() {}").diagnostics.first?.fixIts.first
        #expect(fix == .init(message: "remove 'private'", line: 1, column: 10, length: 8, replacement: ""))
    }

    @Test func privateSetterIsNotAPrivateHandler() {
        // `private(set)` only makes sense on properties, but it must not be taken for `private`.
        #expect(scan("enum E { @handler public static func a() {} }").diagnostics == [])
    }

    @Test func handlerInPrivateTypeOrExtension() {
        expectError(
            "private extension E {\n  @handler static func a() {}\n}", line: 2, column: 3,
            ["private or fileprivate type or extension", "make the enclosing declaration internal"])
        expectError(
            "fileprivate struct S {\n  enum Inner { @handler static func a() {} }\n}", line: 2, column: 16,
            ["private or fileprivate type"])
        #expect(scan("private(set) var x = 1\nstruct S { @handler static func a() {} }").diagnostics == [])
        #expect(scan("private func helper() {}\nstruct S { @handler static func a() {} }").diagnostics == [])
    }

    @Test func genericFunction() {
        expectError(
            "enum E {\n  @handler static func a<T: Codable>(x: T) {}\n}", line: 2, column: 25,
            ["cannot be generic", "remove the generic parameters"])
        expectError(
            "@handler func b<T: Sequence<Array<Int>>>(x: T) {}", line: 1, column: 16, ["cannot be generic"])
        expectError(
            "extension Box {\n  @handler static func c() where T == Int {}\n}", line: 2, column: 28,
            ["cannot have a 'where' clause", "remove the 'where' clause"])
        expectError(
            "@handler func d(x: some Codable) {}", line: 1, column: 20,
            ["parameter 'x'", "uses 'some'", "'any P'"])
        #expect(scan("@handler func e(x: any Codable, y: () -> some View) {}").diagnostics.count == 1)
    }

    @Test func handlerInGenericType() {
        expectError(
            "struct Box<T> {\n  @handler static func a() {}\n}", line: 2, column: 3,
            ["generic type 'Box'", "non-generic type"])
        expectError(
            "class Outer<T: Codable> {\n  enum Inner {\n    @handler static func a() {}\n  }\n}", line: 3, column: 5,
            ["generic type 'Outer.Inner'"])
        #expect(scan("struct Plain: Equatable {\n  @handler static func a(x: Array<Int>) {}\n}").diagnostics == [])
        expectError(
            "struct Vector<let count: Int, Element> {\n  @handler static func a() {}\n}", line: 2, column: 3,
            ["generic type 'Vector'"])
    }

    @Test func inoutAndVariadicParameters() {
        expectError(
            "enum E {\n  @handler static func a(x: inout Int) {}\n}", line: 2, column: 29,
            ["parameter 'x'", "cannot be 'inout'", "remove 'inout'"])
        expectError(
            "enum E {\n  @handler static func a(_ values: Int...) {}\n}", line: 2, column: 39,
            ["parameter 'values'", "cannot be variadic", "'[T]'"])
    }

    @Test func protocolRequirement() {
        expectError(
            "protocol P {\n  @handler static func a()\n  func b()\n}", line: 2, column: 3,
            ["requirement of protocol 'P'", "concrete type"])
    }

    @Test func localFunctions() {
        expectError(
            "func outer() {\n  @handler func inner() {}\n}", line: 2, column: 3,
            ["local function", "move it to file scope"])
        expectError(
            "let c = {\n  @handler func inner() {}\n}", line: 2, column: 3, ["local function"])
        expectError(
            "struct S {\n  func m() {\n    struct Local { @handler static func a() {} }\n  }\n}", line: 3, column: 20,
            ["local function"])
        expectError(
            "struct S {\n  var p: Int {\n    @handler func a() {}\n    return 1\n  }\n}", line: 3, column: 5,
            ["local function"])
    }

    @Test func instanceMethodWithoutInstance() {
        let source = "struct S {\n  @handler func a() {}\n}"
        expectError(source, line: 2, column: 3, ["needs 'instance:'", "@handler(instance:", "make it 'static'"])
        #expect(
            scan(source).diagnostics.first?.fixIts == [
                .init(
                    message: "add 'instance:'", line: 2, column: 11, length: 0,
                    replacement: #"(instance: "<#expression#>")"#)
            ])
        let withID = scan("struct S {\n  @handler(id: \"x\") func a() {}\n}").diagnostics.first?.fixIts
        #expect(
            withID == [
                .init(
                    message: "add 'instance:'", line: 2, column: 19, length: 0,
                    replacement: #", instance: "<#expression#>""#)
            ])
        let empty = scan("struct S {\n  @handler() func a() {}\n}").diagnostics.first?.fixIts
        #expect(
            empty == [
                .init(
                    message: "add 'instance:'", line: 2, column: 12, length: 0,
                    replacement: #"instance: "<#expression#>""#)
            ])
    }

    @Test func staticMethodWithInstance() {
        let source = "enum E {\n  @handler(instance: \"x\") static func a() {}\n}"
        expectError(source, line: 2, column: 12, ["static method 'a'", "remove the 'instance:' argument"])
        #expect(
            scan(source).diagnostics.first?.fixIts == [
                .init(message: "remove 'instance:'", line: 2, column: 11, length: 15, replacement: "")
            ])
        let classSource = "class C {\n  @handler(id: \"i\", instance: \"x\") class func a() {}\n}"
        expectError(classSource, line: 2, column: 21, ["class method 'a'"])
        #expect(
            scan(classSource).diagnostics.first?.fixIts == [
                .init(message: "remove 'instance:'", line: 2, column: 19, length: 15, replacement: "")
            ])
        let first = scan("enum E {\n  @handler(instance: \"x\", id: \"i\") static func a() {}\n}").diagnostics.first?
            .fixIts
        #expect(first == [.init(message: "remove 'instance:'", line: 2, column: 12, length: 15, replacement: "")])
    }

    @Test func instanceOnFileScopeFunction() {
        expectError(
            "@handler(instance: \"x\") func a() {}", line: 1, column: 10,
            ["file-scope function", "remove the 'instance:' argument"])
    }

    @Test func unknownAndUnlabeledArguments() {
        expectError(
            "@handler(name: \"x\") func a() {}", line: 1, column: 10,
            ["unknown argument 'name:'", "'id:'", "'instance:'"])
        expectError("@handler(\"x\") func a() {}", line: 1, column: 10, ["must be labeled"])
        expectError(
            "@handler(id: \"x\", id: \"y\") func a() {}", line: 1, column: 19, ["'id:' is given more than once"])
    }

    @Test func argumentsMustBePlainStringLiterals() {
        expectError(
            "@handler(id: \"a\\(x)\") func a() {}", line: 1, column: 14,
            ["'id:' must be a plain string literal", "interpolation"])
        expectError("@handler(id: prefix + \"x\") func a() {}", line: 1, column: 14, ["plain string literal"])
        expectError("@handler(id: 42) func a() {}", line: 1, column: 14, ["plain string literal"])
        expectError(
            "struct S {\n  @handler(instance: someExpression) func a() {}\n}", line: 2, column: 22,
            ["'instance:' must be a plain string literal", "@handler(instance: \"account.omemo\")"])
        expectError("@handler(id: \"\") func a() {}", line: 1, column: 14, ["must not be an empty string"])
        expectError("@handler(id: \"abc) func a() {}", line: 1, column: 9, ["not closed"])
    }

    @Test func handlerOnSomethingThatIsNotAFunction() {
        expectError("@handler var x = 1", line: 1, column: 1, ["only be applied to a function", "'var'"])
        expectError("struct S {\n  @handler init() {}\n}", line: 2, column: 3, ["'init'"])
        expectError("@handler\nstruct S {}", line: 1, column: 1, ["'struct'"])
        expectError("@handler\nclass C {}", line: 1, column: 1, ["'class'"])
        expectError("enum E {\n  @handler case a\n}", line: 2, column: 3, ["'case'"])
        expectError("@handler", line: 1, column: 1, ["only be applied to a function"])
        expectError("struct S {\n  @handler subscript(i: Int) -> Int { i }\n}", line: 2, column: 3, ["'subscript'"])
    }

    @Test func incompleteDeclarations() {
        expectError("@handler func", line: 1, column: 14, ["has no name", "func name(…)"])
        expectError("@handler func f", line: 1, column: 16, ["'f' has no parameter list", "f(…)"])
        expectError("@handler func f(a: Int", line: 1, column: 23, ["parameter list", "not closed", "add ')'"])
        expectError("@handler func f(a) {}", line: 1, column: 17, ["not of the form 'label name: Type'"])
        expectError("@handler func f(a b c: Int) {}", line: 1, column: 17, ["not of the form"])
        expectError("@handler func f(: Int) {}", line: 1, column: 17, ["not of the form"])
        expectError("@handler func f() -> {}", line: 1, column: 19, ["'->' but no return type"])
    }

    @Test func operatorFunction() {
        expectError(
            "struct V {\n  @handler static func + (l: V, r: V) {}\n}", line: 2, column: 24,
            ["operator function '+'", "named function"])
    }

    @Test func duplicateIDsInOneFile() {
        let source = "enum E {\n  @handler(id: \"x\") static func a() {}\n}\n@handler(id: \"x\") func b() {}"
        let result = scan(source)
        #expect(result.handlers.count == 2)
        #expect(result.diagnostics.map(\.line) == [2, 4])
        #expect(result.diagnostics.map(\.column) == [3, 1])
        #expect(result.diagnostics[0].message.contains("duplicate handler id 'x': also declared at T.swift:4:1"))
        #expect(result.diagnostics[1].message.contains("also declared at T.swift:2:3"))
        #expect(result.diagnostics[0].message.contains("@handler(id:"))
    }

    @Test func duplicateDerivedIDs() {
        let result = scan("enum E { @handler static func a() {} }\nextension E { @handler static func a(x: Int) {} }")
        #expect(result.diagnostics.map(\.line) == [1, 2])
        #expect(result.diagnostics.allSatisfy { $0.message.contains("duplicate handler id 'E.a'") })
    }

    @Test func sameIDInExclusiveConditionBranchesIsFine() {
        let source = """
            #if os(iOS)
            @handler func a() {}
            #elseif os(macOS)
            @handler func a() {}
            #else
            @handler func a() {}
            #endif
            """
        let result = scan(source)
        #expect(result.diagnostics == [])
        #expect(result.handlers.count == 3)
        let overlapping = "#if DEBUG\n@handler func a() {}\n#endif\n@handler func a() {}"
        #expect(scan(overlapping).diagnostics.count == 2)
    }

    @Test func severalProblemsInOneDeclarationAreAllReported() {
        let result = scan("struct S {\n  @handler(bad: 1) private func f<T>(x: inout T, y: Int...) {}\n}")
        #expect(result.handlers.isEmpty)
        let messages = result.diagnostics.map(\.message)
        #expect(messages.contains { $0.contains("unknown argument 'bad:'") })
        #expect(messages.contains { $0.contains("cannot be private") })
        #expect(messages.contains { $0.contains("cannot be generic") })
        #expect(messages.contains { $0.contains("cannot be 'inout'") })
        #expect(messages.contains { $0.contains("cannot be variadic") })
        #expect(messages.contains { $0.contains("needs 'instance:'") })
        #expect(result.diagnostics.map(\.line) == Array(repeating: 2, count: result.diagnostics.count))
        #expect(result.diagnostics.map(\.column) == result.diagnostics.map(\.column).sorted())
    }

    @Test func compilerFormat() {
        let diagnostic = scan("@handler var x = 1", file: "Sources/App/x.swift").diagnostics.first
        #expect(diagnostic?.compilerFormatted.hasPrefix("Sources/App/x.swift:1:1: error: @handler can only") == true)
    }
}
