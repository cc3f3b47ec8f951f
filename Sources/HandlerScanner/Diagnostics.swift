/// The messages the scanner reports. Each one says what is wrong and how to fix it.
enum Diagnostics {
    static let instancePlaceholder = "<#expression#>"

    // MARK: Attribute arguments

    /// The labels `@handler` takes, in the order its macro declaration requires them.
    static let argumentLabels = ["id", "instance", "formerly", "renamed"]

    static func unknownArgument(_ label: String) -> String {
        "unknown argument '\(label):' in @handler; the only arguments are 'id:' (a stable handler id), "
            + "'instance:' (how to find the instance of an instance method), 'formerly:' (former ids) and "
            + "'renamed:' (former parameter names): remove '\(label):'"
    }

    static let unlabeledArgument =
        "@handler arguments must be labeled: write @handler(id: \"…\") or @handler(instance: \"…\")"

    static func duplicateArgument(_ label: String) -> String {
        "'\(label):' is given more than once in @handler; keep only one"
    }

    static func notPlainString(_ label: String) -> String {
        let example =
            switch label {
            case "id": "@handler(id: \"cleanup.v1\")"
            case "formerly": "@handler(formerly: \"Carbons.enabled\")"
            default: "@handler(instance: \"account.omemo\")"
            }
        return "'\(label):' must be a plain string literal without interpolation or other expressions, "
            + "e.g. \(example)"
    }

    static func emptyArgument(_ label: String) -> String {
        "'\(label):' must not be an empty string; write the \(label == "instance" ? "expression" : "handler id") "
            + "between the quotes"
    }

    static let missingClosingParenthesis =
        "@handler's argument list is not closed: add ')' after the last argument"

    // MARK: What the attribute is attached to

    static func notAFunction(_ what: String?) -> String {
        let found = what.map { "a '\($0)' declaration" } ?? "something that is not a function"
        return "@handler can only be applied to a function, not to \(found); move @handler to a 'func' "
            + "declaration or remove it"
    }

    static func operatorFunction(_ name: String) -> String {
        "@handler cannot be applied to the operator function '\(name)'; declare a named function (e.g. "
            + "'static func combine(…)') that calls the operator and mark that one"
    }

    static func missingName() -> String {
        "@handler function has no name: write 'func name(…)'"
    }

    static func missingParameterList(_ name: String) -> String {
        "@handler function '\(name)' has no parameter list: write '\(name)(…)'"
    }

    static func unterminatedParameterList(_ name: String) -> String {
        "the parameter list of @handler function '\(name)' is not closed: add ')'"
    }

    static func returnsValue(_ name: String, type: String) -> String {
        "@handler function '\(name)' returns \(type), but a handler's result has nowhere to go: a handler may run "
            + "later or in another process, where no caller waits for it; return Void and report the result "
            + "through the function's effects (or a Handler it is given to call back)"
    }

    static func missingReturnType(_ name: String) -> String {
        "@handler function '\(name)' has '->' but no return type: write the type after '->' or remove '->'"
    }

    static func malformedParameter(_ name: String) -> String {
        "a parameter of @handler function '\(name)' is not of the form 'label name: Type': give it a name "
            + "and a type"
    }

    // MARK: Misuse

    static func privateHandler(_ name: String, _ modifier: String) -> String {
        "@handler function '\(name)' cannot be \(modifier): the generated registration code must call it; "
            + "remove '\(modifier)' (internal, package or public are fine)"
    }

    static func privateEnclosingType(_ name: String) -> String {
        "@handler function '\(name)' is inside a private or fileprivate type or extension, so the generated "
            + "registration code cannot call it; make the enclosing declaration internal (remove "
            + "'private'/'fileprivate')"
    }

    static func genericEnclosingType(_ name: String, _ type: String) -> String {
        "@handler function '\(name)' is in the generic type '\(type)', so the generated code cannot call it "
            + "without concrete generic arguments; move it to a non-generic type or to file scope"
    }

    static func genericHandler(_ name: String) -> String {
        "@handler function '\(name)' cannot be generic: handlers are called from JSON with concrete types; "
            + "remove the generic parameters and use concrete (or 'any P') parameter types"
    }

    static func opaqueParameter(_ name: String, _ parameter: String, _ keyword: String) -> String {
        "parameter '\(parameter)' of @handler function '\(name)' uses '\(keyword)', which makes the function "
            + "generic; handlers are called from JSON with concrete types: use a concrete type or 'any P'"
    }

    static func whereClause(_ name: String) -> String {
        "@handler function '\(name)' cannot have a 'where' clause: handlers are called with concrete types; "
            + "remove the 'where' clause"
    }

    static func inoutParameter(_ name: String, _ parameter: String) -> String {
        "parameter '\(parameter)' of @handler function '\(name)' cannot be 'inout': handlers receive their "
            + "arguments by value; remove 'inout' (return a result or use a reference type instead)"
    }

    static func variadicParameter(_ name: String, _ parameter: String) -> String {
        "parameter '\(parameter)' of @handler function '\(name)' cannot be variadic: use an array type "
            + "'[T]' instead of 'T...'"
    }

    static func protocolRequirement(_ name: String, _ type: String) -> String {
        "@handler cannot be used on '\(name)', a requirement of protocol '\(type)': a requirement has no "
            + "implementation to call; mark a static method or a method of a concrete type or extension instead"
    }

    static func localFunction(_ name: String) -> String {
        "@handler function '\(name)' is a local function (inside a function, closure or accessor body), "
            + "which generated code cannot reach; move it to file scope or into a type or extension"
    }

    static func missingInstance(_ name: String) -> String {
        "instance method '\(name)' needs 'instance:' to say how the generated code finds the instance from "
            + "the handler's arguments, e.g. @handler(instance: \"account.omemo\"); or make it 'static'"
    }

    static func staticWithInstance(_ name: String, _ modifier: String) -> String {
        "\(modifier) method '\(name)' is called on its type and takes no 'instance:'; remove the "
            + "'instance:' argument (or make '\(name)' an instance method)"
    }

    static func instanceOnGlobal(_ name: String) -> String {
        "'\(name)' is a file-scope function and takes no 'instance:' ('instance:' is only for instance "
            + "methods); remove the 'instance:' argument"
    }

    static func duplicateID(_ id: String, otherFile: String, otherLine: Int, otherColumn: Int) -> String {
        "duplicate handler id '\(id)': also declared at \(otherFile):\(otherLine):\(otherColumn); ids must be "
            + "unique in a module: give one of them another id with @handler(id: \"…\")"
    }

    // MARK: Files

    static func unreadable(_ reason: String) -> String {
        "cannot read this file (\(reason)); check that it exists and is readable, or leave it out"
    }

    static let notUTF8 =
        "this file is not valid UTF-8 (invalid byte sequence here); save it with UTF-8 encoding"

    static let binary =
        "this file contains NUL bytes and looks binary, not Swift source; remove it or rename it so it does "
        + "not end in '.swift'"

    static let noHandlerAttribute =
        "the declaration has no @handler attribute; the scanner expects the text of the declaration that "
        + "@handler is attached to, starting at its attributes"
}
