// The values the templates in Templates/ receive. Templates are logic-free: every decision (names,
// separators, which accessor a parameter uses, how a type is spelled) is made here, and a template only
// lays the values out. All strings are inserted verbatim (the templates use the TEXT content type); those
// that land inside a Swift string literal are already escaped for it.

/// The context of `file.mustache`: the whole generated file.
struct FileContext {
    /// The module's name, escaped for a string literal (e.g. `Chat`).
    let moduleName: String
    /// The name of the `HandlerTable` static property: the module name in lower camel case, backticked
    /// when it is a keyword (e.g. `chat`, `handlerKitDemo`).
    let tableName: String
    /// `true` when the module has at least one handler.
    let hasHandlers: Bool
    /// The number of handlers (the table reserves that capacity).
    let handlerCount: Int
    /// One entry per handler, sorted by id.
    let handlers: [HandlerSection]
    /// The C modules that declare the C types converted below (none without C types).
    /// The sources' own imports (other than HandlerKit), so parameter types resolve as they do there.
    let sourceImports: [SourceImportContext]
    let cImports: [ImportContext]
    /// The `Codable` conformances of the C types the handlers bind, sorted by name.
    let cTypes: [CTypeSection]
}

/// One `#if` level a handler sits under, outermost first.
struct ConditionContext {
    /// The condition of the `#if` line that reproduces the branch on its own: the expression itself for
    /// an `#if` branch, `!(a) && (b)` for an `#elseif b` after `#if a`, `!(a) && !(b)` for an `#else`.
    let expression: String
}

/// An entry of the descriptor's `parameters` array, appended on a line of its own.
struct ParameterItem {
    /// `required` for a mandatory parameter, `optional` for a `T?` or defaulted one.
    let kind: String
    /// The argument key (the parameter's internal name), escaped for a string literal.
    let key: String
    /// The type whose `.self` is passed: the wrapped type of an optional, parenthesized where needed.
    let metatype: String
    /// `, formerly: ["old"]` with the parameter's former names (`@handler(renamed:)`), else empty.
    let formerNames: String
}

/// A local a shim binds, on a line of its own, before it calls the handler function with the locals.
struct LocalItem {
    /// The parameter's internal name as a Swift identifier (backticked if it is a keyword).
    let name: String
    /// The parameter's type as a local's type (`@escaping`/`@autoclosure` dropped, `T!` as `T?`).
    let type: String
    /// `required`, `optional` or `value` (a `HandlerArguments` method).
    let accessor: String
    /// The argument key, escaped for a string literal.
    let key: String
    /// `true` when `accessor` is `value` and `defaultValue` is the `default:` argument.
    let hasDefault: Bool
    /// The default value expression copied from the declaration.
    let defaultValue: String
    /// The typed call's parameter whose call-time value, when not `nil`, the local takes instead
    /// (`call.mustache`: `let account: Account = try account ?? arguments.required("account")`).
    let callTimeName: String
}

/// One call of the handler function in a shim whose call depends on which parameters with defaults
/// the generated code cannot repeat have a value (see `HandlerContext.callVariants`).
struct CallVariant {
    /// What opens the branch: `if let pageSize {`, `} else if let sort {`, `} else {`.
    let opening: String
    /// The call with its arguments (locals), e.g. `try Paging.fetch(page: page, size: size)`, one
    /// argument per line when it is longer than a line.
    let text: String
}

/// A value the reference function binds.
struct BindingItem {
    /// The argument key, escaped for a string literal.
    let key: String
    /// The reference function's parameter that holds the value (a Swift identifier).
    let name: String
}

/// A handler's entry in `file.mustache`.
struct HandlerSection {
    /// The handler id, escaped for a string literal.
    let id: String
    /// The `#if` levels around the handler, outermost first; empty when unconditional.
    let conditions: [ConditionContext]
    /// `true` when `members` go in an `extension` of `enclosingType`.
    let isMember: Bool
    /// The enclosing type as written; empty at file scope.
    let enclosingType: String
    /// What precedes `descriptorName` in the table: `Carbons.` for members, empty at file scope.
    let qualifier: String
    /// The function that returns the handler's `HandlerDescriptor`.
    let descriptorName: String
    /// `descriptor.mustache`, `reference.mustache` and `call.mustache` rendered for the handler (separated
    /// by blank lines, without a final newline), indented by four spaces for members. Partials are not used for
    /// this because the template package does not indent the lines of sections inside indented partials.
    let members: String
}

/// The context of `descriptor.mustache`, `reference.mustache` and `call.mustache`: one handler.
struct HandlerContext {
    /// The handler id, escaped for a string literal.
    let id: String
    /// The module's name, escaped for a string literal (the reference names it when the module's table
    /// is not registered).
    let moduleName: String
    /// The module's `HandlerTable` property without backticks, escaped for a string literal.
    let tableName: String
    /// The `#if` levels around the handler, outermost first; empty when unconditional.
    let conditions: [ConditionContext]
    /// `true` for static, class and instance methods (the generated members go in an extension of
    /// `enclosingType`); `false` for file-scope functions (they go at file scope).
    let isMember: Bool
    /// The enclosing type as written (e.g. `Carbons`, `Outer.Inner`); empty at file scope.
    let enclosingType: String
    /// The descriptor function's modifiers: `nonisolated fileprivate static ` for members (`nonisolated`
    /// so the table can call it when the type is actor-isolated, e.g. `@MainActor`), `fileprivate ` at
    /// file scope.
    let descriptorModifiers: String
    /// The modifiers of the reference and of the id: the handler's access level unless `internal`
    /// (`public `, `package `), then `nonisolated static ` for members; e.g. `public nonisolated static `.
    let referenceModifiers: String
    /// The typed call's modifiers: the reference's, except that for a handler isolated to a global
    /// actor it is isolated to that actor instead of `nonisolated` (`@MainActor public static `).
    let callModifiers: String
    /// The handler's id as a compiler-checked value: `<name>HandlerID`, with `_2`, `_3`… for a further id
    /// of the same name in the same scope (in id order; one id under exclusive `#if` branches keeps one name).
    let idName: String
    /// What precedes `descriptorName` in the table: `Carbons.` for members, empty at file scope.
    let qualifier: String
    /// The `fileprivate` function that returns the handler's `HandlerDescriptor`: `<name>HandlerDescriptor`,
    /// with `_2`, `_3`… for further handlers of the same name in the same scope (in id order).
    let descriptorName: String
    /// The generated reference (factory): `<name>Handler`, `internal`.
    let referenceName: String
    /// The user's file, escaped for a string literal (the `#sourceLocation` target).
    let file: String
    /// `true` to write the `#sourceLocation` directives (see `HandlerGenerator.sourceLocations`).
    let sourceLocations: Bool
    /// `true` when the handler has parameters.
    let hasParameters: Bool
    /// The `parameters` array's entries, each appended on a line of its own mapped to its parameter's
    /// line.
    let parameterLines: [MappedLine<ParameterItem>]
    /// The shim's opening: `return HandlerDescriptor(id: "<id>", parameters: parameters, invoke: {
    /// arguments in` (with `formerIDs:` for former ids; `invokeAsync:` for `async` handlers and those
    /// isolated to a global actor, whose closure is then isolated to it: `{ @MainActor arguments in`),
    /// the closure's signature on the next line when the line would be longer than 120 columns.
    let descriptorReturn: String
    /// `true` for `async` handlers and those isolated to a global actor (the typed call is `async
    /// throws` and awaits `callBound`).
    let isAsync: Bool
    /// What follows the typed call's closure parameter: ` async throws` for a handler isolated to a
    /// global actor (so the `async` `callBound` is chosen although the body does not `await`), else empty.
    let callClosureEffects: String
    /// The closure parameter of the shim and of the typed call's `callBound` body: `arguments` (another
    /// name if a parameter is called so), `_` when the handler has no parameters.
    let argumentsName: String
    /// The locals the shim and the typed call bind, one per line, each mapped to its parameter's line
    /// (where its type and default value are written).
    let localLines: [MappedLine<LocalItem>]
    /// The user's line the call is mapped to: the first parameter's line, or the `@handler` line for an
    /// instance handler (its `instance:` expression).
    let callLine: Int
    /// The call of the handler function with the locals: `try await account.omemo.bundleFetched(account:
    /// account, …)`, one argument per line when it is longer than a line.
    let callText: String
    /// `true` when the call depends on which parameters whose default the generated code cannot repeat
    /// (`HandlerDeclaration.Parameter.isDefaultCopyable`) have a value: the shim then calls the function
    /// in one of `callVariants`, leaving each such parameter without a value out so that Swift applies
    /// its default.
    let hasCallVariants: Bool
    /// The branches, most arguments first, each on `callLine`: 2^n calls for n such parameters.
    let callVariants: [CallVariant]
    /// `true` when `#sourceLocation` maps the signatures of the reference and of the typed call: their
    /// parameters' rows to the user's rows (not for a handler without parameters, nor on the file's
    /// first line).
    let mapsSignature: Bool
    /// `true` when the reference and the typed call get their one-line doc comments, mapped to the
    /// line before their declaration's line, so that a directive never separates a doc comment from
    /// its declaration (which would detach it). `false` when the parameters are on line 2.
    let hasReferenceDoc: Bool
    /// The user's line the first mapped line of a signature (its doc comment, else its declaration)
    /// maps to: the rows of parameters follow on the lines after the declaration's.
    let signatureLine: Int
    /// The reference's parameter rows: the handler's parameters as optionals, those the user wrote on
    /// one line in one row, each row ending with a comma (`referenceExtras` follows).
    let referenceParameterRows: [SignatureRow]
    /// The reference's last parameters: `invalidation: HandlerID? = nil, registry: HandlerRegistry = .shared`.
    let referenceExtras: String
    /// The values the reference binds, in declaration order.
    let bindings: [BindingItem]
    /// The reference's local `HandlerBindings` variable: `bindings`, or another name if a parameter is called so.
    let bindingsName: String
    /// The reference's invalidation-target parameter: `invalidation`, or `handlerInvalidation` on a clash.
    let invalidationName: String
    /// The reference's registry parameter: `registry`, or `handlerRegistry` on a clash.
    let registryName: String
    /// The typed call: `call<Name>Handler` (the base name with its first letter uppercased), with `_2`,
    /// `_3`… when another handler's typed call or reference in the same scope has that name (in id order).
    let callName: String
    /// The typed call's first parameter, the `Handler` to call: `handler`, or another name when a
    /// parameter, a default value or the `instance:` expression uses that one.
    let handlerName: String
    /// The typed call's parameters after `handlerName`: the handler's parameters as optionals, declared
    /// as in the reference, in the same rows. A parameter whose name a default value also uses
    /// (`limit: Int = limit`, a static member) gets a distinct internal name (`limit limit_: Int? = nil`),
    /// so that the default still means what it means in the declaration.
    let callParameterRows: [SignatureRow]
}

/// The context of `ctype.mustache`: the `Codable` conformance of one C struct or enum a handler binds.
struct CTypeContext {
    /// The name Swift imports the type under, e.g. `HKPoint`.
    let name: String
    /// Where the type is declared, `file:line` (for the doc comment).
    let location: String
    /// `true` for a struct (fields coded one by one), `false` for an enum (coded as its raw value).
    let isStructure: Bool
    /// The statements of `init(from:)` after its container line (struct only).
    let decodeLines: [LineContext]
    /// The statements of `encode(to:)` after its container line (struct only).
    let encodeLines: [LineContext]
}

/// One line of generated code, without indentation.
struct LineContext {
    let text: String
}

/// A C module the generated file imports, for the C types it converts.
struct ImportContext {
    let name: String
}

/// An `import` of the sources, repeated in the generated file under the same `#if` branches.
struct SourceImportContext {
    /// `import Foundation` or `@testable import Core`.
    let declaration: String
    let conditions: [ConditionContext]
}

/// A rendered C type conversion, placed after the handlers in the generated file.
struct CTypeSection {
    /// The name of the type, for the section's `// MARK:` line.
    let name: String
    /// The conformance, rendered from `ctype.mustache`.
    let text: String
}
