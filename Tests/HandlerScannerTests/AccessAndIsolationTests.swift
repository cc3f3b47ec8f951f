import HandlerScanner
import Testing

/// What the generator needs beyond the declaration's shape: the effective access level,
/// the global actor, and defaults that name private symbols of the file.
@Suite("Access, isolation and private defaults")
struct AccessAndIsolationTests {
    /// The effective access level of every handler in `source`, by id.
    func access(_ source: String) -> [String: HandlerDeclaration.AccessLevel] {
        let result = scan(source)
        #expect(result.diagnostics == [])
        return Dictionary(uniqueKeysWithValues: result.handlers.map { ($0.id, $0.access) })
    }

    @Test func accessLevelIsTheFunctionsCappedByItsEnclosingDeclarations() {
        let levels = access(
            """
            public enum Feed {
                @handler public static func a() {}
                @handler static func b() {}
                @handler package static func c() {}
                @handler open class func d() {}
                public struct Nested {
                    @handler public static func e() {}
                }
            }
            enum Internal {
                @handler public static func f() {}
                public enum Inner {
                    @handler public static func g() {}
                }
            }
            package enum Pkg {
                @handler public static func h() {}
            }
            public extension Feed {
                @handler static func i() {}
                @handler internal static func j() {}
            }
            package extension Feed {
                @handler static func k() {}
                @handler public static func l() {}
            }
            extension Feed {
                @handler public static func m() {}
                @handler static func n() {}
            }
            @handler public func o() {}
            @handler func p() {}
            @handler package func q() {}
            """)
        #expect(
            levels == [
                "Feed.a": .public, "Feed.b": .internal, "Feed.c": .package, "Feed.d": .public,
                "Feed.Nested.e": .public, "Internal.f": .internal, "Internal.Inner.g": .internal, "Pkg.h": .package,
                "Feed.i": .public, "Feed.j": .internal, "Feed.k": .package, "Feed.l": .package,
                "Feed.m": .public, "Feed.n": .internal, "o": .public, "p": .internal, "q": .package,
            ])
    }

    /// `open(…)` and `package` as ordinary names are not modifiers.
    @Test func contextualKeywordsUsedAsNamesAreNotModifiers() {
        let levels = access(
            """
            let handle = open(path)
            var package = 1
            struct Files {
                @handler static func a() {}
            }
            """)
        #expect(levels == ["Files.a": .internal])
    }

    @Test func globalActorOfTheFunctionTypeOrExtension() {
        let result = scan(
            """
            @MainActor
            enum Banner {
                @handler static func shown() {}
                @handler nonisolated static func logged() {}
                enum Nested {
                    @handler static func notIsolated() {}
                }
            }
            enum Screens {
                @MainActor @handler static func before() {}
                @handler @MainActor static func after() {}
                @handler @Storage.DatabaseActor static func qualified() {}
                @handler static func plain() {}
            }
            @DatabaseActor public final class Store {
                @handler class func saved() {}
            }
            @preconcurrency @MainActor extension Screens {
                @handler static func inExtension() {}
            }
            enum Legacy {
                @MainActor @available(*, deprecated) @handler static func old() {}
            }
            @globalActor actor DatabaseActor {
                static let shared = DatabaseActor()
            }
            struct Views {
                var action: @MainActor () -> Void
                @handler static func afterAClosureType() {}
            }
            @handler @MainActor func atFileScope() {}
            """)
        #expect(result.diagnostics == [])
        let actors = Dictionary(uniqueKeysWithValues: result.handlers.map { ($0.id, $0.globalActor ?? "-") })
        #expect(
            actors == [
                "Banner.shown": "MainActor", "Banner.logged": "-", "Banner.Nested.notIsolated": "-",
                "Screens.before": "MainActor", "Screens.after": "MainActor",
                "Screens.qualified": "Storage.DatabaseActor",
                "Screens.plain": "-", "Store.saved": "DatabaseActor", "Screens.inExtension": "MainActor",
                "Views.afterAClosureType": "-", "atFileScope": "MainActor", "Legacy.old": "MainActor",
            ])
    }

    /// Defaults naming a symbol this file declares private (anywhere in the file, before or after
    /// the handler, or inside a private type or extension) cannot be repeated by generated code.
    @Test func defaultsNamingPrivateSymbolsAreMarked() throws {
        let handler = try #require(
            onlyHandler(
                """
                enum Paging {
                    @handler
                    static func fetch(a: Int = pageSize, b: Int = Limits.most, c: String = Paging.order,
                                      d: Int = helper(), e: Int = visible, f: String? = nil, g: Int = shared.count,
                                      h: [Int] = [], i: Int = setter) {}
                    private static func helper() -> Int { 1 }
                    static let visible = 2
                    private(set) static var setter = 3
                }
                private extension Paging {
                    static let order = "date"
                }
                fileprivate enum Limits {
                    static let most = 9
                }
                private let pageSize = 25
                struct Other {
                    private let shared: [Int] = []
                }
                """))
        let copyable = Dictionary(uniqueKeysWithValues: handler.parameters.map { ($0.name, $0.isDefaultCopyable) })
        #expect(
            copyable == [
                "a": false, "b": false, "c": false, "d": false, "e": true, "f": true, "g": false, "h": true, "i": true,
            ])
    }

    /// Private names of one file do not affect handlers of another.
    @Test func privateNamesAreTheFilesOwn() throws {
        let handler = try #require(
            onlyHandler(
                """
                enum Paging {
                    @handler static func fetch(size: Int = pageSize) {}
                }
                let pageSize = 25
                """))
        #expect(handler.parameters.first?.isDefaultCopyable == true)
    }
}
