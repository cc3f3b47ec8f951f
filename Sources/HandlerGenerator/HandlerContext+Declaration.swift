import HandlerScanner

extension HandlerContext {
    /// The context for one handler.
    /// - Parameters:
    ///   - descriptorSuffix: `""`, or `_2`, `_3`… for a further handler of the same name in the same scope.
    ///   - idSuffix: the same for a further id of the same name in the same scope (handlers sharing an
    ///     id under exclusive `#if` branches share the id's name).
    ///   - callName: the typed call's name (see `HandlerGenerator.callNames`).
    ///   - sourceLocations: whether to write `#sourceLocation` directives.
    ///   - moduleName: the module's name; `tableName`: its `HandlerTable` property, without backticks.
    init(
        _ handler: HandlerDeclaration, descriptorSuffix: String, idSuffix: String, callName: String,
        sourceLocations: Bool,
        moduleName: String, tableName: String
    ) {
        let parameters = handler.parameters
        let names = Set(parameters.map(\.name))
        let baseName = handler.name
        let isMember = handler.kind != .global && handler.type != nil
        let enclosingType = isMember ? (handler.type ?? "") : ""
        let file = SwiftSource.stringLiteralContent(handler.file)
        let firstLine = parameters.first?.line ?? handler.line
        let argumentsName = parameters.isEmpty ? "_" : Self.freeName("arguments", avoiding: names)

        // The typed call's own names. Its `Handler` parameter avoids every name its body may mention.
        // A parameter whose name a default value uses (`limit: Int = limit` with a static `limit`)
        // gets another internal name, so that in the body the default still means the static member.
        let defaultWords = Self.identifiers(in: parameters.compactMap { $0.hasDefault ? $0.defaultValue : nil })
        var taken = names.union(defaultWords).union(Self.identifiers(in: [handler.instance ?? ""]))
        taken.insert(argumentsName)
        let handlerName = Self.freeName("handler", avoiding: taken)
        taken.insert(handlerName)
        var callTimeNames: [String: String] = [:]
        for parameter in parameters {
            var name = SwiftSource.identifier(parameter.name)
            if defaultWords.contains(parameter.name) {
                name = Self.freeName(parameter.name + "_", avoiding: taken)
                taken.insert(name)
            }
            callTimeNames[parameter.name] = name
        }

        id = SwiftSource.stringLiteralContent(handler.id)
        self.moduleName = SwiftSource.stringLiteralContent(moduleName)
        self.tableName = SwiftSource.stringLiteralContent(tableName)
        conditions = handler.conditions.map(ConditionContext.init)
        self.isMember = isMember
        self.enclosingType = enclosingType
        descriptorModifiers = isMember ? "nonisolated fileprivate static " : "fileprivate "
        let access = Self.accessModifier(handler.access)
        referenceModifiers = access + (isMember ? "nonisolated static " : "")
        if let actor = handler.globalActor {
            callModifiers = "@\(actor) " + access + (isMember ? "static " : "")
        } else {
            callModifiers = referenceModifiers
        }
        qualifier = isMember ? enclosingType + "." : ""
        descriptorName = baseName + "HandlerDescriptor" + descriptorSuffix
        idName = baseName + "HandlerID" + idSuffix
        referenceName = baseName + "Handler"
        self.file = file
        self.sourceLocations = sourceLocations
        hasParameters = !parameters.isEmpty
        parametersLine = firstLine
        let hopsToActor = handler.globalActor != nil
        invokeLabel = handler.isAsync || hopsToActor ? "invokeAsync" : "invoke"
        shimIsolation = handler.globalActor.map { "@\($0) " } ?? ""
        isAsync = handler.isAsync || hopsToActor
        callClosureEffects = hopsToActor ? " async throws" : ""
        self.argumentsName = argumentsName
        let hidden = parameters.filter { $0.hasDefault && !$0.isDefaultCopyable }
        let bindsLocals = handler.kind == .instance || !hidden.isEmpty
        self.bindsLocals = bindsLocals
        localsLine = firstLine

        parameterRows = Self.rows(parameters, separators: .list) { parameter, separator in
            let type = SwiftType(scanned: parameter.type)
            let metatype = parameter.isOptional ? (type.wrapped ?? type).postfixOperand : type.postfixOperand
            return ParameterItem(
                kind: parameter.isMandatory ? "required" : "optional",
                key: SwiftSource.stringLiteralContent(parameter.name),
                metatype: metatype,
                formerNames: parameter.formerNames.isEmpty
                    ? "" : ", formerly: " + Self.stringArray(parameter.formerNames),
                separator: separator
            )
        }

        formerIDsArgument = handler.formerIDs.isEmpty ? "" : "formerIDs: " + Self.stringArray(handler.formerIDs) + ", "

        let accessors = parameters.map { Self.accessor($0) }
        if bindsLocals {
            localRows = Self.rows(parameters, separators: .statements, defaultsSpanLines: true) {
                parameter, separator in
                let (accessor, defaultValue) = Self.accessor(parameter)
                let type = SwiftType(scanned: parameter.type)
                return LocalItem(
                    name: SwiftSource.identifier(parameter.name),
                    type: parameter.isDefaultCopyable
                        ? type.localType : type.optionalType(isOptional: parameter.isOptional),
                    accessor: accessor,
                    key: SwiftSource.stringLiteralContent(parameter.name),
                    hasDefault: defaultValue != nil,
                    defaultValue: defaultValue ?? "",
                    callTimeName: callTimeNames[parameter.name] ?? "",
                    separator: separator
                )
            }
            // The call uses only the locals: it sits on the `@handler` line, where `instance:` is written
            // (for call variants, each call of the chain does).
            callLine = handler.line
            hasCallVariants = !hidden.isEmpty
            callVariants = Self.callVariants(parameters, hidden: hidden)
            callRows = [
                RowContext(
                    isContinuation: false, blankLines: "",
                    items: parameters.enumerated().map { index, parameter in
                        ArgumentItem(
                            label: Self.label(parameter),
                            value: SwiftSource.identifier(parameter.name),
                            typedValue: SwiftSource.identifier(parameter.name),
                            separator: index == parameters.count - 1 ? "" : ", "
                        )
                    }
                )
            ]
        } else {
            localRows = []
            callLine = firstLine
            hasCallVariants = false
            callVariants = []
            var index = 0
            callRows = Self.rows(parameters, separators: .list, defaultsSpanLines: true) { parameter, separator in
                let (accessor, defaultValue) = accessors[index]
                index += 1
                let key = SwiftSource.stringLiteralContent(parameter.name)
                let value =
                    defaultValue.map { "\(argumentsName).\(accessor)(\"\(key)\", default: \($0))" }
                    ?? "\(argumentsName).\(accessor)(\"\(key)\")"
                return ArgumentItem(
                    label: Self.label(parameter), value: value,
                    typedValue: "\(callTimeNames[parameter.name] ?? "") ?? \(value)", separator: separator)
            }
        }

        var prefix = ""
        let callThrows = handler.isThrows || (!bindsLocals && !parameters.isEmpty)
        if callThrows { prefix += "try " }
        if handler.isAsync { prefix += "await " }
        callPrefix = prefix
        let escapedName = SwiftSource.identifier(baseName)
        switch handler.kind {
        case .instance:
            callee = Self.instanceReceiver(handler.instance ?? "") + "." + escapedName
        case .static:
            callee = isMember ? enclosingType + "." + escapedName : escapedName
        case .global:
            callee = escapedName
        }

        // The reference function: the parameters as optionals, then the invalidation target and registry.
        let invalidationName =
            names.contains("invalidation") ? Self.freeName("handlerInvalidation", avoiding: names) : "invalidation"
        let registryName = names.contains("registry") ? Self.freeName("handlerRegistry", avoiding: names) : "registry"
        self.invalidationName = invalidationName
        self.registryName = registryName
        bindingsName = Self.freeName("bindings", avoiding: names)
        referenceLine = firstLine
        hasReferenceDoc = firstLine > 1
        referenceDocLine = firstLine - 1
        var rows = Self.rows(parameters, separators: .list) { parameter, separator in
            let type = SwiftType(scanned: parameter.type).optionalType(isOptional: parameter.isOptional)
            return ReferenceItem(
                declaration: "\(SwiftSource.identifier(parameter.name)): \(type) = nil",
                separator: separator
            )
        }
        // The typed call: the same parameters and rows, without the extras.
        self.callName = callName
        self.handlerName = handlerName
        callParameterRows = Self.rows(parameters, separators: .list) { parameter, separator in
            let type = SwiftType(scanned: parameter.type).optionalType(isOptional: parameter.isOptional)
            let label = SwiftSource.identifier(parameter.name)
            let name = callTimeNames[parameter.name] ?? label
            return ReferenceItem(
                declaration: name == label ? "\(label): \(type) = nil" : "\(label) \(name): \(type) = nil",
                separator: separator
            )
        }
        let extras = [
            "\(invalidationName): HandlerID? = nil",
            "\(registryName): HandlerRegistry = .shared",
        ]
        if rows.isEmpty {
            rows = [RowContext(isContinuation: false, blankLines: "", items: [])]
        }
        var lastRow = rows.removeLast()
        var items = lastRow.items
        if let last = items.popLast() {
            items.append(ReferenceItem(declaration: last.declaration, separator: ", "))
        }
        items += extras.enumerated().map { index, declaration in
            ReferenceItem(declaration: declaration, separator: index == extras.count - 1 ? "" : ", ")
        }
        lastRow = RowContext(isContinuation: lastRow.isContinuation, blankLines: lastRow.blankLines, items: items)
        referenceRows = rows + [lastRow]
        bindings = parameters.map {
            BindingItem(key: SwiftSource.stringLiteralContent($0.name), name: SwiftSource.identifier($0.name))
        }
    }

    /// The modifier written for an access level: `public `, `package `, or nothing for `internal` (the
    /// scanner refuses `private` and `fileprivate` handlers).
    private static func accessModifier(_ access: HandlerDeclaration.AccessLevel) -> String {
        switch access {
        case .public: "public "
        case .package: "package "
        case .internal, .fileprivate, .private: ""
        }
    }

    /// The calls of a shim that leaves out the parameters in `hidden` (defaults the generated code cannot
    /// repeat) when they have no value: one branch per subset of them, most arguments first, so the first
    /// branch whose `if let` conditions hold is the one with exactly the values present.
    private static func callVariants(
        _ parameters: [HandlerDeclaration.Parameter], hidden: [HandlerDeclaration.Parameter]
    ) -> [CallVariant] {
        let count = 1 << hidden.count
        return (0..<count).reversed().map { mask in
            let present = Set(
                hidden.indices.filter { mask & (1 << (hidden.count - 1 - $0)) != 0 }.map { hidden[$0].name })
            let omitted = Set(hidden.map(\.name)).subtracting(present)
            let conditions = hidden.filter { present.contains($0.name) }.map {
                "let " + SwiftSource.identifier($0.name)
            }
            let opening: String
            if mask == count - 1 {
                opening = "if " + conditions.joined(separator: ", ") + " {"
            } else if mask == 0 {
                opening = "} else {"
            } else {
                opening = "} else if " + conditions.joined(separator: ", ") + " {"
            }
            let arguments = parameters.filter { !omitted.contains($0.name) }.map { parameter in
                label(parameter) + SwiftSource.identifier(parameter.name)
            }
            return CallVariant(opening: opening, arguments: arguments.joined(separator: ", "))
        }
    }

    /// How a shim reads a parameter: `required`; `optional` for `T?` without a default or defaulting to
    /// `nil`, and for a default the generated code cannot repeat (the call then leaves the argument out);
    /// `value` with the default expression otherwise.
    ///
    /// A default of a function type is written `(default) as Type`: inside `value(_:default:)`'s
    /// autoclosure a closure literal would otherwise not be inferred `@Sendable` (or otherwise typed) as in
    /// the declaration.
    private static func accessor(_ parameter: HandlerDeclaration.Parameter) -> (accessor: String, defaultValue: String?)
    {
        if parameter.hasDefault, !parameter.isDefaultCopyable { return ("optional", nil) }
        var defaultValue = parameter.hasDefault ? parameter.defaultValue : nil
        let type = SwiftType(scanned: parameter.type)
        if let value = defaultValue, value != "nil", type.spelled.contains("->") {
            defaultValue = "(\(value)) as \(type.localType)"
        }
        if parameter.isOptional, defaultValue == nil || defaultValue == "nil" {
            return ("optional", nil)
        }
        if let defaultValue {
            return ("value", defaultValue)
        }
        return (parameter.isOptional ? "optional" : "required", nil)
    }

    private static func label(_ parameter: HandlerDeclaration.Parameter) -> String {
        parameter.label == "_" ? "" : parameter.label + ": "
    }

    /// The receiver of an instance handler's call: the `instance:` expression, parenthesized unless it
    /// is a plain member chain such as `account.omemo`.
    private static func instanceReceiver(_ expression: String) -> String {
        let plain =
            !expression.isEmpty
            && expression.unicodeScalars.allSatisfy { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == "." || scalar == "`"
            }
        return plain ? expression : "(\(expression))"
    }

    /// The names that `texts` may refer to: words of letters, digits and `_` (backticks dropped), except
    /// members (`.count`, `.shared`). Words in string literals count too: avoiding one costs nothing.
    private static func identifiers(in texts: [String]) -> Set<String> {
        var words: Set<String> = []
        for text in texts {
            var word = ""
            var isMember = false
            var previous: Character = " "  // the last character that is neither whitespace nor a backtick
            for character in text + " " {
                if character.isLetter || character.isNumber || character == "_" {
                    if word.isEmpty { isMember = previous == "." }
                    word.append(character)
                } else {
                    if let first = word.first, !first.isNumber, !isMember { words.insert(word) }
                    word = ""
                }
                if !character.isWhitespace && character != "`" { previous = character }
            }
        }
        return words
    }

    /// `base`, or `base_`, `base__`… until it is none of `names`.
    private static func freeName(_ base: String, avoiding names: Set<String>) -> String {
        var name = base
        while names.contains(name) { name += "_" }
        return name
    }

    enum Separators {
        /// `, ` inside a row, `,` at the end of a row, nothing after the last item.
        case list
        /// `; ` inside a row, nothing at the end of a row.
        case statements
    }

    /// Groups `parameters` into rows by their line in the user's file.
    ///
    /// With `defaultsSpanLines`, the rows carry the default values, whose text may span lines (a closure):
    /// those lines count towards the next row's distance, and a parameter that the user wrote on the
    /// line where a multi-line default ends joins that row.
    private static func rows<Item>(
        _ parameters: [HandlerDeclaration.Parameter], separators: Separators, defaultsSpanLines: Bool = false,
        _ makeItem: (HandlerDeclaration.Parameter, String) -> Item
    ) -> [RowContext<Item>] {
        // (first line of the row, blank lines before it, parameter indices)
        var groups: [(line: Int, blankLines: Int, members: [Int])] = []
        var endLine = 0  // the user's line where the previous row's text ends
        for (index, parameter) in parameters.enumerated() {
            if !groups.isEmpty, parameter.line <= endLine {
                groups[groups.count - 1].members.append(index)
            } else {
                let blank = groups.isEmpty ? 0 : max(parameter.line - endLine - 1, 0)
                groups.append((parameter.line, blank, [index]))
                endLine = parameter.line
            }
            if defaultsSpanLines, parameter.hasDefault, let value = parameter.defaultValue {
                endLine += value.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
            }
        }
        return groups.enumerated().map { groupIndex, group in
            let items = group.members.enumerated().map { position, index in
                let isRowEnd = position == group.members.count - 1
                let separator: String
                switch separators {
                case .list: separator = index == parameters.count - 1 ? "" : (isRowEnd ? "," : ", ")
                case .statements: separator = isRowEnd ? "" : "; "
                }
                return makeItem(parameters[index], separator)
            }
            return RowContext(
                isContinuation: groupIndex > 0, blankLines: String(repeating: "\n", count: group.blankLines),
                items: items)
        }
    }
}

extension ConditionContext {
    init(_ condition: HandlerDeclaration.Condition) {
        let earlier = condition.precedingExpressions.map { "!(\($0))" }
        switch condition.branch {
        case .if:
            expression = condition.expression
        case .elseif:
            expression = (earlier + ["(\(condition.expression))"]).joined(separator: " && ")
        case .else:
            expression = earlier.isEmpty ? "true" : earlier.joined(separator: " && ")
        }
    }
}
