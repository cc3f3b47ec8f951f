import HandlerScanner

/// Handler declarations built by hand (no scanner involved), covering every form the generator renders.
enum ModelFixtures {
    typealias Parameter = HandlerDeclaration.Parameter
    typealias Condition = HandlerDeclaration.Condition

    static func parameter(
        _ name: String, _ type: String, label: String? = nil, optional: Bool = false,
        default defaultValue: String? = nil, line: Int
    ) -> Parameter {
        Parameter(
            label: label ?? name, name: name, type: type, isOptional: optional, hasDefault: defaultValue != nil,
            defaultValue: defaultValue, line: line
        )
    }

    static func handler(
        file: String = "Sources/Chat/Handlers.swift", line: Int, column: Int = 5, id: String? = nil,
        type: String?, name: String, kind: HandlerDeclaration.Kind, instance: String? = nil,
        async: Bool = false, throws: Bool = false,
        parameters: [Parameter] = [], conditions: [Condition] = []
    ) -> HandlerDeclaration {
        HandlerDeclaration(
            file: file, line: line, column: column, id: id ?? [type, name].compactMap { $0 }.joined(separator: "."),
            hasExplicitID: id != nil, type: type, name: name, kind: kind, instance: instance, isAsync: async,
            isThrows: `throws`, parameters: parameters, conditions: conditions
        )
    }

    /// The three handlers of the README's example plus the forms around them.
    static let chat: [HandlerDeclaration] = [
        handler(
            file: "Sources/Chat/Carbons.swift", line: 4, type: "Carbons", name: "enabled", kind: .static,
            parameters: [
                parameter("account", "Account", line: 5), parameter("iqNode", "IQ", line: 5),
                parameter("limit", "Int", default: "defaultLimit", line: 5),
                parameter("note", "String?", optional: true, default: "nil", line: 5),
            ]
        ),
        handler(
            file: "Sources/Chat/OMEMO.swift", line: 10, type: "OMEMO", name: "bundleFetched", kind: .instance,
            instance: "account.omemo", async: true, throws: true,
            parameters: [
                parameter("account", "Account", line: 11), parameter("jid", "String", line: 11),
                parameter("success", "Bool", line: 11),
                parameter("errorReason", "String?", optional: true, default: "nil", line: 12),
                parameter("rid", "String", line: 12),
            ]
        ),
        handler(
            file: "Sources/Chat/Cleanup.swift", line: 3, column: 1, id: "cleanup.v1", type: nil, name: "cleanUp",
            kind: .global, parameters: [parameter("reason", "String", line: 4)]
        ),
        handler(
            file: "Sources/Chat/Outer.swift", line: 20, type: "Outer.Inner", name: "ping", kind: .static,
            conditions: [
                Condition(branch: .if, expression: "os(Linux)", precedingExpressions: []),
                Condition(branch: .elseif, expression: "DEBUG", precedingExpressions: ["FAST"]),
            ]
        ),
        handler(
            file: "Sources/Chat/Outer.swift", line: 30, type: "Outer.Inner", name: "convert", kind: .static,
            throws: true,
            parameters: [
                parameter("kind", "Kind", label: "_", line: 31),
                parameter("callback", "@escaping@Sendable(Int)->Void", line: 33),
                parameter("values", "[String:Int]?", label: "with", optional: true, line: 33),
                parameter("any", "anyCodable&Sendable", default: "0", line: 34),
            ],
            conditions: [Condition(branch: .else, expression: "", precedingExpressions: ["os(Linux)", "DEBUG"])]
        ),
    ]
}

extension ModelFixtures {
    /// Names that clash with what the generated code declares, keywords, overloads, a complex
    /// `instance:` expression, a parameter without a label and a handler on line 1.
    static let clashes: [HandlerDeclaration] = [
        handler(
            file: "Sources/default/Names.swift", line: 1, column: 1, type: "Names", name: "names", kind: .static,
            async: true,
            parameters: [
                parameter("arguments", "[String]", line: 1), parameter("bindings", "Int", line: 1),
                parameter("invalidation", "String", line: 1), parameter("registry", "Int?", optional: true, line: 1),
                parameter("handlerInvalidation", "Bool", default: "false", line: 1),
            ]
        ),
        handler(
            file: "Sources/default/Names.swift", line: 10, id: "Names.overload.a", type: "Names", name: "overload",
            kind: .static, parameters: [parameter("a", "Int", line: 11)]
        ),
        handler(
            file: "Sources/default/Names.swift", line: 20, id: "Names.overload.b", type: "Names", name: "overload",
            kind: .static, parameters: [parameter("b", "Int", line: 21)]
        ),
        handler(
            file: "Sources/default/Names.swift", line: 30, type: "Names", name: "default", kind: .instance,
            instance: "store.current ?? Names(\"fallback\")", throws: true,
            parameters: [
                parameter("store", "Store", label: "in", line: 31),
                parameter("for", "Int!", optional: true, line: 31),
                parameter("arguments", "String", label: "_", default: "\"a\\\\b\"", line: 32),
            ]
        ),
        handler(
            file: "Sources/default/Path \"quoted\".swift", line: 5, id: "with \"quotes\" \\ and\ttab", type: nil,
            name: "odd", kind: .global
        ),
    ]
}

extension ModelFixtures {
    /// Access levels, handlers isolated to a global actor, and defaults that name private
    /// symbols of their file (left to Swift through call variants).
    static let accessAndIsolation: [HandlerDeclaration] = [
        access(
            .public,
            handler(
                file: "Sources/Chat/Feed.swift", line: 4, type: "Feed", name: "itemsFetched", kind: .static,
                parameters: [parameter("items", "[Item]", line: 5), parameter("page", "Int", default: "1", line: 5)]
            )),
        access(
            .package,
            handler(file: "Sources/Chat/Admin.swift", line: 2, column: 1, type: nil, name: "reset", kind: .global)),
        isolated(
            access(
                .public,
                handler(
                    file: "Sources/Chat/Badge.swift", line: 8, type: "Badge", name: "bumped", kind: .static,
                    parameters: [parameter("amount", "Int", label: "by", line: 9)]
                ))),
        isolated(
            handler(
                file: "Sources/Chat/Screen.swift", line: 12, type: "Screen", name: "present", kind: .instance,
                instance: "account.screen", async: true,
                parameters: [
                    parameter("account", "Account", line: 13),
                    hidden(parameter("title", "String", default: "fallbackTitle", line: 14)),
                ]
            ), actor: "Storage.DatabaseActor"),
        oneIDUnderExclusiveBranches[0], oneIDUnderExclusiveBranches[1],
        handler(
            file: "Sources/Chat/Paging.swift", line: 20, type: "Paging", name: "fetch", kind: .static, throws: true,
            parameters: [
                parameter("page", "Int", line: 21),
                hidden(parameter("size", "Int", default: "pageSize", line: 22)),
                parameter("sort", "String", default: "\"date\"", line: 22),
                hidden(parameter("filter", "Filter?", optional: true, default: "Filter.unread", line: 23)),
            ]
        ),
    ]

    /// One id under exclusive `#if` branches: its two declarations share `toggleHandlerID`.
    static let oneIDUnderExclusiveBranches: [HandlerDeclaration] = [
        handler(
            file: "Sources/Chat/Flags.swift", line: 3, type: "Flags", name: "toggle", kind: .static,
            parameters: [parameter("on", "Bool", line: 4)],
            conditions: [Condition(branch: .if, expression: "os(Linux)", precedingExpressions: [])]
        ),
        handler(
            file: "Sources/Chat/Flags.swift", line: 8, type: "Flags", name: "toggle", kind: .static,
            parameters: [parameter("on", "Bool", line: 9)],
            conditions: [Condition(branch: .else, expression: "", precedingExpressions: ["os(Linux)"])]
        ),
    ]

    static func access(_ level: HandlerDeclaration.AccessLevel, _ handler: HandlerDeclaration) -> HandlerDeclaration {
        var handler = handler
        handler.access = level
        return handler
    }

    static func isolated(_ handler: HandlerDeclaration, actor: String = "MainActor") -> HandlerDeclaration {
        var handler = handler
        handler.globalActor = actor
        return handler
    }

    static func hidden(_ parameter: Parameter) -> Parameter {
        var parameter = parameter
        parameter.isDefaultCopyable = false
        return parameter
    }
}
