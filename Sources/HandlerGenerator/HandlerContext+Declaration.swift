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
        let hopsToActor = handler.globalActor != nil
        isAsync = handler.isAsync || hopsToActor
        callClosureEffects = hopsToActor ? " async throws" : ""
        self.argumentsName = argumentsName
        let hidden = parameters.filter { $0.hasDefault && !$0.isDefaultCopyable }

        parameterLines = Self.mappedLines(parameters, sourceLocations: sourceLocations, defaultsSpanLines: false) {
            parameter in
            let type = SwiftType(scanned: parameter.type)
            let metatype = parameter.isOptional ? (type.wrapped ?? type).postfixOperand : type.postfixOperand
            return ParameterItem(
                kind: parameter.isMandatory ? "required" : "optional",
                key: SwiftSource.stringLiteralContent(parameter.name),
                metatype: metatype,
                formerNames: parameter.formerNames.isEmpty
                    ? "" : ", formerly: " + Self.stringArray(parameter.formerNames)
            )
        }

        let formerIDsArgument =
            handler.formerIDs.isEmpty ? "" : "formerIDs: " + Self.stringArray(handler.formerIDs) + ", "
        let invokeLabel = handler.isAsync || handler.globalActor != nil ? "invokeAsync" : "invoke"
        let shimIsolation = handler.globalActor.map { "@\($0) " } ?? ""
        // The shim's closure opens on the `return` line, its signature moved to the next line when the
        // line would be longer than a line.
        let opening =
            "return HandlerDescriptor(id: \"\(id)\", \(formerIDsArgument)parameters: parameters, \(invokeLabel): {"
        let closureSignature = shimIsolation + argumentsName + " in"
        descriptorReturn =
            4 + (isMember ? 4 : 0) + opening.count + 1 + closureSignature.count <= Self.width
            ? opening + " " + closureSignature : opening + "\n        " + closureSignature

        // The shims bind every argument to a local of the parameter's type, one statement per line
        // mapped to the parameter's line (where its type and default value are), then call the function
        // with the locals: from the `@handler` line for an instance handler (where `instance:` is
        // written), else from the line of the first parameter (the function's).
        localLines = Self.mappedLines(parameters, sourceLocations: sourceLocations, defaultsSpanLines: true) {
            parameter in
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
                callTimeName: callTimeNames[parameter.name] ?? ""
            )
        }
        callLine = handler.kind == .instance ? handler.line : firstLine
        hasCallVariants = !hidden.isEmpty

        let prefix = (handler.isThrows ? "try " : "") + (handler.isAsync ? "await " : "")
        let escapedName = SwiftSource.identifier(baseName)
        let callee: String
        switch handler.kind {
        case .instance:
            callee = Self.instanceReceiver(handler.instance ?? "") + "." + escapedName
        case .static:
            callee = isMember ? enclosingType + "." + escapedName : escapedName
        case .global:
            callee = escapedName
        }
        // A local of an `@autoclosure` parameter holds the closure: the call passes its value.
        let arguments = parameters.map { parameter in
            Self.label(parameter) + SwiftSource.identifier(parameter.name)
                + (parameter.type.contains("@autoclosure") ? "()" : "")
        }
        callText = Self.call(prefix + callee, arguments: arguments, indentation: "        ", isMember: isMember)
        callVariants = Self.callVariants(parameters, hidden: hidden).map { variant in
            CallVariant(
                opening: variant.opening,
                text: Self.call(
                    prefix + callee, arguments: variant.arguments, indentation: "            ", isMember: isMember))
        }

        // The reference function: the parameters as optionals, then the invalidation target and registry.
        let invalidationName =
            names.contains("invalidation") ? Self.freeName("handlerInvalidation", avoiding: names) : "invalidation"
        let registryName = names.contains("registry") ? Self.freeName("handlerRegistry", avoiding: names) : "registry"
        self.invalidationName = invalidationName
        self.registryName = registryName
        bindingsName = Self.freeName("bindings", avoiding: names)
        // The signatures open on the line before the parameters' first row, their doc comment on the
        // line before that (a directive between a doc comment and its declaration would detach it), so
        // that their rows map to the user's rows; without two lines to spare, without the doc comment
        // or, on the file's first line, unmapped.
        mapsSignature = sourceLocations && firstLine >= 2 && !parameters.isEmpty
        hasReferenceDoc = firstLine >= 3 || !mapsSignature
        signatureLine = hasReferenceDoc ? firstLine - 2 : firstLine - 1
        let rowIndentation = isMember ? 8 : 4
        referenceParameterRows = Self.signatureRows(
            parameters, endsWithComma: true, mapped: mapsSignature, indentation: rowIndentation
        ) { parameter in
            let type = SwiftType(scanned: parameter.type).optionalType(isOptional: parameter.isOptional)
            return "\(SwiftSource.identifier(parameter.name)): \(type) = nil"
        }
        referenceExtras = "\(invalidationName): HandlerID? = nil, \(registryName): HandlerRegistry = .shared"
        // The typed call: the same parameters and rows, without the extras.
        self.callName = callName
        self.handlerName = handlerName
        callParameterRows = Self.signatureRows(
            parameters, endsWithComma: false, mapped: mapsSignature, indentation: rowIndentation
        ) { parameter in
            let type = SwiftType(scanned: parameter.type).optionalType(isOptional: parameter.isOptional)
            let label = SwiftSource.identifier(parameter.name)
            let name = callTimeNames[parameter.name] ?? label
            return name == label ? "\(label): \(type) = nil" : "\(label) \(name): \(type) = nil"
        }
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
    ) -> [(opening: String, arguments: [String])] {
        guard !hidden.isEmpty else { return [] }
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
            return (opening, arguments)
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
