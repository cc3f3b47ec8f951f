import Foundation
import HandlerGenerator
import HandlerScanner
import Testing

/// The build's check of a module's handlers against its committed baseline: each
/// rule, the change and its reverse, and the compatible changes that must pass silently.
@Suite struct BaselineCheckTests {
    /// The baseline `old` would have (its manifest, as committed, with `rules` edited by `edit`).
    static func baseline(_ old: String, edit: (String) -> String = { $0 }) throws -> Baseline {
        let manifest = HandlerManifest(module: "App", scan: SourceScanner.scan(source: old, file: "Old.swift"))
        return try Baseline.parse(Data(edit(manifest.json).utf8), file: "App/.handlers-baseline.json")
    }

    /// The diagnostics of `new` checked against the baseline of `old`, in the compiler's format.
    static func check(_ old: String, _ new: String, edit: (String) -> String = { $0 }) throws -> [String] {
        let scan = SourceScanner.scan(source: new, file: "New.swift")
        #expect(scan.diagnostics == [])
        return BaselineCheck.diagnostics(scan, module: "App", against: try baseline(old, edit: edit)).map(
            \.compilerFormatted)
    }

    static func wrap(_ body: String) -> String { "enum Mail {\n\(body)\n}" }

    @Test func anUnchangedModulePasses() throws {
        let source = Self.wrap("    @handler static func fetch(box: String, limit: Int = 3, flag: Bool?) {}")
        #expect(try Self.check(source, source) == [])
    }

    @Test(arguments: [
        // New handlers, new optional or defaulted parameters, added former names.
        (
            "@handler static func fetch(box: String) {}",
            "@handler static func fetch(box: String) {}\n@handler static func send(to: String) {}"
        ),
        (
            "@handler static func fetch(box: String) {}",
            "@handler static func fetch(box: String, limit: Int = 3, flag: Bool?) {}"
        ),
        (
            "@handler static func fetch(box: String) {}",
            "@handler(formerly: \"Inbox.fetch\", renamed: [\"folder\": \"box\"]) static func fetch(box: String) {}"
        ),
        // Renames with former names: the id, the type, a parameter.
        (
            "@handler static func fetch(box: String) {}",
            "@handler(formerly: \"Mail.fetch\") static func load(box: String) {}"
        ),
        (
            "@handler static func fetch(box: String) {}",
            "@handler(renamed: [\"box\": \"folder\"]) static func fetch(folder: String) {}"
        ),
        (
            "@handler(id: \"fetch.v1\") static func fetch(box: String) {}",
            "@handler(id: \"fetch.v1\") static func load(box: String) {}"
        ),
        // Less strict: mandatory → optional or defaulted, T → T?, Int → Double, [Int] → [Double].
        ("@handler static func fetch(box: String) {}", "@handler static func fetch(box: String? = nil) {}"),
        ("@handler static func fetch(n: Int, m: [Int]) {}", "@handler static func fetch(n: Double, m: [Double]) {}"),
        (
            "@handler static func fetch(n: [String: Int]) {}",
            "@handler static func fetch(n: Dictionary<String, Int>?) {}"
        ),
        // A parameter removed outright (values stored under it are kept and ignored), order changed.
        ("@handler static func fetch(box: String, limit: Int) {}", "@handler static func fetch(box: String) {}"),
        (
            "@handler static func fetch(box: String, limit: Int) {}",
            "@handler static func fetch(limit: Int, box: String) {}"
        ),
        // Reverses of breaking changes: a mandatory parameter removed, an unbindable one becoming bindable.
        ("@handler static func fetch(box: String, extra: Int) {}", "@handler static func fetch(box: String) {}"),
        ("@handler static func fetch(done: @escaping () -> Void) {}", "@handler static func fetch(done: String?) {}"),
        // An unbindable parameter renamed: nothing can have been stored under it.
        (
            "@handler static func fetch(done: @escaping () -> Void) {}",
            "@handler static func fetch(finished: @escaping () -> Void) {}"
        ),
    ])
    func compatibleChangesPassSilently(old: String, new: String) throws {
        #expect(try Self.check(Self.wrap(old), Self.wrap(new)) == [])
    }

    @Test func aRemovedHandlerIsReportedAtItsLineInTheBaseline() throws {
        let old = Self.wrap("@handler static func fetch(box: String) {}\n@handler static func send(to: String) {}")
        let diagnostics = try Self.check(old, Self.wrap("@handler static func fetch(box: String) {}"))
        let line =
            try #require(
                try Self.baseline(old).manifest.json.split(separator: "\n", omittingEmptySubsequences: false)
                    .firstIndex { $0.contains("\"id\": \"Mail.send\"") }) + 1
        #expect(
            diagnostics == [
                "App/.handlers-baseline.json:\(line):1: error: handler 'Mail.send' (Mail.send) of the baseline no longer exists: stored documents naming it fail to rebuild (unknown handler); restore it, add @handler(formerly: \"Mail.send\") to the handler that replaces it, or accept the removal with `swift package --allow-writing-to-package-directory update-handler-baseline` [handlerRemoved]"
            ])
    }

    @Test func aRenameWithoutAFormerIDIsReportedAtTheNewHandler() throws {
        let diagnostics = try Self.check(
            "enum Mail {\n    @handler static func fetch(box: String) {}\n}",
            "enum Post {\n    @handler static func fetch(box: String) {}\n}")
        #expect(
            diagnostics == [
                "New.swift:2:5: error: handler id 'Mail.fetch' (Mail.fetch) of the baseline is gone and 'Post.fetch' is new: if 'Post.fetch' is 'Mail.fetch' renamed, add 'formerly: \"Mail.fetch\"' to its @handler so that stored documents naming 'Mail.fetch' rebuild; if 'Mail.fetch' was removed on purpose, accept it with `swift package --allow-writing-to-package-directory update-handler-baseline` [handlerRemoved]"
            ])
        // The function renamed in its type (same parameters) is recognised too.
        let renamed = try Self.check(
            Self.wrap("@handler static func fetch(box: String) {}"),
            Self.wrap("@handler static func load(box: String) {}"))
        #expect(renamed.count == 1)
        #expect(
            renamed.first?.contains("if 'Mail.load' is 'Mail.fetch' renamed, add 'formerly: \"Mail.fetch\"'") == true)
    }

    @Test func aParameterRenamedWithoutAFormerNameIsAnError() throws {
        let diagnostics = try Self.check(
            Self.wrap("@handler static func fetch(box: String) {}"),
            Self.wrap("@handler static func fetch(folder: String) {}"))
        #expect(
            diagnostics == [
                "New.swift:2:1: error: parameter 'box' of handler 'Mail.fetch' is gone and 'folder' is new: if 'folder' is 'box' renamed, add 'renamed: [\"box\": \"folder\"]' to its @handler so that values stored under 'box' bind to it; if 'box' was removed on purpose, accept it with `swift package --allow-writing-to-package-directory update-handler-baseline` [parameterRenamed]"
            ])
    }

    @Test func aNewMandatoryParameterIsAnErrorAndANewOptionalOneIsNot() throws {
        let diagnostics = try Self.check(
            Self.wrap("@handler static func fetch(box: String) {}"),
            Self.wrap("@handler static func fetch(box: String, limit: Int, flag: Bool = false) {}"))
        #expect(
            diagnostics == [
                "New.swift:2:1: error: new parameter 'limit' of handler 'Mail.fetch' is mandatory: stored handlers did not bind it, so calling them fails (missing argument) unless every call passes it; give it a default value or make it optional ('Int?'), or accept it with `swift package --allow-writing-to-package-directory update-handler-baseline` [mandatoryParameterAdded]"
            ])
    }

    @Test func anOptionalParameterBecomingMandatoryIsAnError() throws {
        let diagnostics = try Self.check(
            Self.wrap("@handler static func fetch(limit: Int = 3) {}"),
            Self.wrap("@handler static func fetch(limit: Int) {}"))
        #expect(diagnostics.count == 1)
        #expect(
            diagnostics.first?.hasPrefix(
                "New.swift:2:1: error: parameter 'limit' of handler 'Mail.fetch' became mandatory") == true)
        #expect(
            try Self.check(
                Self.wrap("@handler static func fetch(limit: Int) {}"),
                Self.wrap("@handler static func fetch(limit: Int?) {}")) == [])
    }

    @Test(arguments: [
        ("Int", "String"), ("String", "Int"), ("Bool", "Int"), ("[Int]", "[String]"), ("Int", "[Int]"),
        ("[String: Int]", "[String: Bool]"), ("Handler", "String"),
    ])
    func aTypeWhoseJSONCertainlyDiffersIsAnError(old: String, new: String) throws {
        let diagnostics = try Self.check(
            Self.wrap("@handler static func fetch(n: \(old)) {}"), Self.wrap("@handler static func fetch(n: \(new)) {}")
        )
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.contains("error: parameter 'n' of handler 'Mail.fetch' changed type from") == true)
        #expect(diagnostics.first?.hasSuffix("[typeShapeChanged]") == true)
    }

    @Test(arguments: [
        ("Account", "User"), ("Double", "Int"), ("Account", "String"), ("[Account]", "[User]"), ("Date", "Int"),
    ])
    func aTypeChangeThatMayStillDecodeIsAWarning(old: String, new: String) throws {
        let diagnostics = try Self.check(
            Self.wrap("@handler static func fetch(n: \(old)) {}"), Self.wrap("@handler static func fetch(n: \(new)) {}")
        )
        #expect(diagnostics.count == 1)
        #expect(
            diagnostics.first?.contains(
                "warning: parameter 'n' of handler 'Mail.fetch' changed type from '\(old)' to '\(new)'") == true)
        #expect(diagnostics.first?.hasSuffix("[typeChanged]") == true)
    }

    @Test func aFormerNameCarriesTheTypeCheck() throws {
        let diagnostics = try Self.check(
            Self.wrap("@handler static func fetch(box: Int) {}"),
            Self.wrap("@handler(renamed: [\"box\": \"folder\"]) static func fetch(folder: String) {}"))
        #expect(diagnostics.count == 1)
        #expect(
            diagnostics.first?.contains(
                "parameter 'folder' (formerly 'box') of handler 'Mail.fetch' changed type from 'Int' to 'String'")
                == true)
    }

    @Test(arguments: ["@escaping () -> Void", "(Int) async -> Bool", "any Sendable", "Any", "Mail.Type", "(Int, Int)"])
    func aBindableParameterBecomingUnbindableIsAnError(new: String) throws {
        let diagnostics = try Self.check(
            Self.wrap("@handler static func fetch(n: Int) {}"), Self.wrap("@handler static func fetch(n: \(new)) {}"))
        #expect(diagnostics.count == 1)
        #expect(
            diagnostics.first?.contains("error: parameter 'n' of handler 'Mail.fetch' was bindable ('Int')") == true)
        #expect(diagnostics.first?.hasSuffix("[bindableLost]") == true)
    }

    @Test func rulesInTheBaselineSetTheSeverities() throws {
        let old = Self.wrap("@handler static func fetch(n: Account, m: Int) {}")
        let new = Self.wrap("@handler static func fetch(n: User, m: String) {}")
        let stricter = try Self.check(old, new) {
            $0.replacingOccurrences(of: "\"typeChanged\": \"warning\"", with: "\"typeChanged\": \"error\"")
        }
        #expect(stricter.map { $0.contains(": error: ") } == [true, true])
        let relaxed = try Self.check(old, new) {
            $0.replacingOccurrences(of: "\"typeShapeChanged\": \"error\"", with: "\"typeShapeChanged\": \"warning\"")
                .replacingOccurrences(of: "\"typeChanged\": \"warning\"", with: "\"typeChanged\": \"ignore\"")
        }
        #expect(relaxed.count == 1)
        #expect(relaxed.first?.contains(": warning: parameter 'm'") == true)
    }

    @Test func aBaselineWithoutRulesUsesTheDefaults() throws {
        let old = Self.wrap("@handler static func fetch(n: Account, m: Int) {}")
        let diagnostics = try Self.check(old, Self.wrap("@handler static func fetch(n: User, m: String) {}")) { json in
            let start = json.range(of: "  \"rules\": {")!.lowerBound
            let end = json.range(of: "  },\n")!.upperBound
            return json.replacingCharacters(in: start..<end, with: "")
        }
        #expect(diagnostics.map { $0.contains(": warning: ") } == [true, false])
    }

    @Test func badBaselinesAreTypedErrorsAtTheirLine() throws {
        let old = Self.wrap("@handler static func fetch(n: Int) {}")
        let unknownRule = #expect(throws: GeneratorError.self) {
            try Self.baseline(old) { $0.replacingOccurrences(of: "\"typeChanged\":", with: "\"typeChange\":") }
        }
        #expect(
            unknownRule?.diagnostics.first?.compilerFormatted.hasPrefix(
                "App/.handlers-baseline.json:10:1: error: unknown rule 'typeChange' in the handler baseline; the rules are bindableLost, handlerRemoved,"
            ) == true)
        let badSeverity = #expect(throws: GeneratorError.self) {
            try Self.baseline(old) {
                $0.replacingOccurrences(of: "\"typeChanged\": \"warning\"", with: "\"typeChanged\": \"loud\"")
            }
        }
        #expect(
            badSeverity?.diagnostics.first?.message == "rule 'typeChanged' must be \"error\", \"warning\" or \"ignore\""
        )
        let notJSON = #expect(throws: GeneratorError.self) { try Self.baseline(old) { String($0.dropLast(3)) } }
        #expect(notJSON?.diagnostics.first?.message.contains("not valid JSON") == true)
        let noHandlers = #expect(throws: GeneratorError.self) {
            try Self.baseline(old) { $0.replacingOccurrences(of: "\"handlers\":", with: "\"handler\":") }
        }
        #expect(noHandlers?.diagnostics.first?.message == "the handler baseline needs \"handlers\", an array")
        let badParameter = #expect(throws: GeneratorError.self) {
            try Self.baseline(old) {
                $0.replacingOccurrences(of: "\"mandatory\": true", with: "\"mandatory\": \"yes\"")
            }
        }
        #expect(
            badParameter?.diagnostics.first?.message.hasPrefix(
                "each parameter of handler 'Mail.fetch' in the baseline needs") == true)
    }

    @Test func aBaselineOfAnotherModuleIsAnError() throws {
        let source = Self.wrap("@handler static func fetch(n: Int) {}")
        let baseline = try Self.baseline(source)
        let diagnostics = BaselineCheck.diagnostics(
            SourceScanner.scan(source: source, file: "New.swift"), module: "Other", against: baseline)
        #expect(
            diagnostics.map(\.compilerFormatted) == [
                "App/.handlers-baseline.json:4:1: error: the handler baseline is of module 'App', not 'Other'; write this module's with `swift package --allow-writing-to-package-directory update-handler-baseline`"
            ])
    }

    @Test func theManifestIsDeterministicReadableJSONThatReadsBack() throws {
        let source = """
            @handler(formerly: "Inbox.send", renamed: ["to": "recipient"])
            func send(recipient: String, copies: [String: Int]? = nil, done: @escaping () -> Void, account: Account) {}
            enum Mail {
                @handler(id: "mail.fetch") static func fetch() {}
            }
            """
        let manifest = HandlerManifest(module: "App", scan: SourceScanner.scan(source: source, file: "A.swift"))
        let expectedHandlers = """
              "handlers": [
                {
                  "id": "mail.fetch",
                  "function": "Mail.fetch",
                  "formerIDs": [],
                  "parameters": []
                },
                {
                  "id": "send",
                  "function": "send",
                  "formerIDs": ["Inbox.send"],
                  "parameters": [
                    {"name": "recipient", "formerNames": ["to"], "type": "String", "mandatory": true, "bindable": true},
                    {"name": "copies", "formerNames": [], "type": "[String:Int]?", "mandatory": false, "bindable": true},
                    {"name": "done", "formerNames": [], "type": "@escaping()->Void", "mandatory": true, "bindable": false},
                    {"name": "account", "formerNames": [], "type": "Account", "mandatory": true, "bindable": null}
                  ]
                }
              ]
            }

            """
        #expect(manifest.json.hasSuffix(expectedHandlers), "\(manifest.json)")
        #expect(manifest.json.hasPrefix("{\n  \"about\": \"The @handler functions of this module"))
        let again = HandlerManifest(module: "App", scan: SourceScanner.scan(source: source, file: "A.swift"))
        #expect(again.json == manifest.json)
        #expect(try Baseline.parse(Data(manifest.json.utf8), file: "b.json").manifest == manifest)
    }
}
