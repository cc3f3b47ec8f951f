import CLibClang

/// Turns libclang declarations into the model, one requested name at a time, collecting the named
/// structs and enums they use and a diagnostic for everything that cannot be converted.
struct TypeModelBuilder {
    /// What happened to a requested name.
    enum Resolution {
        case found(declarationName: String)
        case notFound
        case unsupported
    }

    private enum State {
        case inProgress
        case done(String)
        case failed
    }

    private let clang: Clang
    private let index: DeclarationIndex
    private var states = CursorTable<State>()
    private(set) var declarations: [String: CDeclaration] = [:]
    private(set) var diagnostics: [CHeaderDiagnostic] = []

    init(index: DeclarationIndex, clang: Clang) {
        self.index = index
        self.clang = clang
    }

    mutating func resolve(_ name: String) -> Resolution {
        let declaration: HKClangCursor
        if let typedef = index.typedefs[name] {
            guard let underlying = index.underlyingDeclaration(ofTypedef: typedef) else { return .notFound }
            declaration = underlying
        } else if let tag = index.tags[name] {
            declaration = tag
        } else {
            return .notFound
        }
        if clang.kind(declaration) == CursorKind.unionDecl {
            diagnostics.append(
                CHeaderDiagnostic(
                    severity: .error, message: "'\(name)' is a union; HandlerKit cannot convert unions",
                    location: clang.location(declaration), typeName: name))
            return .unsupported
        }
        guard let declarationName = modelNamed(declaration, requestedAs: name) else { return .unsupported }
        return .found(declarationName: declarationName)
    }

    /// Models a named struct or enum (once), returning its name, or nil when it cannot be converted.
    private mutating func modelNamed(_ declaration: HKClangCursor, requestedAs requested: String) -> String? {
        let name = index.swiftName(of: declaration) ?? requested
        switch states[declaration, clang] {
        case .done(let name)?:
            return name
        case .failed?:
            return nil
        case .inProgress?:
            diagnostics.append(
                CHeaderDiagnostic(
                    severity: .error, message: "'\(name)' contains itself", location: clang.location(declaration),
                    typeName: name))
            return nil
        case nil:
            break
        }
        guard let definition = clang.definition(declaration) else {
            diagnostics.append(
                CHeaderDiagnostic(
                    severity: .error, message: "'\(name)' is declared but never defined in the headers",
                    location: clang.location(declaration), typeName: name))
            states[declaration, clang] = .failed
            return nil
        }
        states[definition, clang] = .inProgress
        let model: CDeclaration?
        if clang.kind(definition) == CursorKind.enumDecl {
            model = modelEnum(definition, name: name).map(CDeclaration.enumeration)
        } else {
            model = modelStruct(definition, name: name, owner: name, fieldPrefix: "").map(CDeclaration.structure)
        }
        guard let model else {
            states[definition, clang] = .failed
            return nil
        }
        declarations[name] = model
        states[definition, clang] = .done(name)
        return name
    }

    private mutating func modelEnum(_ definition: HKClangCursor, name: String) -> CEnum? {
        let integerType = clang.enumIntegerType(definition)
        guard let underlying = integer(clang.canonical(integerType)) else {
            diagnostics.append(
                CHeaderDiagnostic(
                    severity: .error,
                    message:
                        "enum '\(name)' has underlying type '\(clang.spelling(integerType))', which is not an integer",
                    location: clang.location(definition), typeName: name))
            return nil
        }
        let cases = clang.children(definition)
            .filter { clang.kind($0) == CursorKind.enumConstantDecl }
            .map { constant in
                CEnumCase(
                    name: clang.spelling(constant),
                    value: underlying.isSigned
                        ? .signed(clang.enumConstantValue(constant))
                        : .unsigned(clang.enumConstantUnsignedValue(constant)))
            }
        return CEnum(
            name: name, underlyingType: underlying, underlyingTypeSpelling: clang.spelling(integerType),
            cases: cases, location: clang.location(definition))
    }

    /// Models a struct definition; `owner` names the top-level type for diagnostics and `fieldPrefix`
    /// the path of fields leading to an anonymous nested struct (`inner.`).
    private mutating func modelStruct(
        _ definition: HKClangCursor, name: String?, owner: String,
        fieldPrefix: String
    ) -> CStruct? {
        guard let fields = fields(of: definition, owner: owner, fieldPrefix: fieldPrefix) else { return nil }
        return CStruct(name: name, fields: fields, location: clang.location(definition))
    }

    private mutating func fields(of definition: HKClangCursor, owner: String, fieldPrefix: String) -> [CField]? {
        var result: [CField] = []
        var failed = false
        for field in clang.fields(clang.type(definition)) {
            let name = clang.spelling(field)
            let type = clang.type(field)
            let location = clang.location(field)
            guard DeclarationIndex.isIdentifier(name) else {
                // An anonymous member (C11): Swift exposes its fields as properties of the outer struct.
                let canonical = clang.canonical(type)
                let member = index.normalized(clang.declaration(canonical))
                if canonical.kind == TypeKind.record, clang.kind(member) == CursorKind.structDecl,
                    let inner = fields(of: member, owner: owner, fieldPrefix: fieldPrefix)
                {
                    result += inner
                } else {
                    if canonical.kind == TypeKind.record, clang.kind(member) == CursorKind.unionDecl {
                        diagnostics.append(
                            CHeaderDiagnostic(
                                severity: .error,
                                message: "'\(owner)' has an anonymous union member; HandlerKit cannot convert unions",
                                location: location, typeName: owner))
                    }
                    failed = true
                }
                continue
            }
            let path = fieldPrefix + name
            guard let fieldType = fieldType(type, owner: owner, fieldPath: path, location: location) else {
                failed = true
                continue
            }
            result.append(
                CField(
                    name: name, type: fieldType, cTypeSpelling: clang.spelling(type),
                    bitWidth: clang.bitWidth(field), location: location))
        }
        return failed ? nil : result
    }

    private mutating func fieldType(
        _ type: HKClangType, owner: String, fieldPath: String,
        location: CSourceLocation?
    ) -> CFieldType? {
        let canonical = clang.canonical(type)
        let spelling = clang.spelling(type)
        func unsupported(_ reason: String) -> CFieldType? {
            diagnostics.append(
                CHeaderDiagnostic(
                    severity: .error, message: "field '\(fieldPath)' of '\(owner)' \(reason)",
                    location: location, typeName: owner, fieldName: fieldPath))
            return nil
        }
        switch canonical.kind {
        case TypeKind.bool:
            return .bool
        case TypeKind.float:
            return .floatingPoint(bits: 32)
        case TypeKind.double:
            return .floatingPoint(bits: 64)
        case TypeKind.enumeration:
            let declaration = index.normalized(clang.declaration(canonical))
            guard index.swiftName(of: declaration) != nil else {
                // Swift imports an anonymous enum's field as the enum's integer type.
                guard let integer = integer(clang.canonical(clang.enumIntegerType(declaration))) else {
                    return unsupported("has an anonymous enum type whose underlying type is not an integer")
                }
                return .integer(integer)
            }
            guard let name = modelNamed(declaration, requestedAs: spelling) else {
                return unsupported("has type '\(spelling)', which HandlerKit cannot convert")
            }
            return .enumeration(name: name)
        case TypeKind.record:
            let declaration = index.normalized(clang.declaration(canonical))
            if clang.kind(declaration) == CursorKind.unionDecl {
                return unsupported("is a union ('\(spelling)'); HandlerKit cannot convert unions")
            }
            guard index.swiftName(of: declaration) != nil else {
                guard let nested = modelStruct(declaration, name: nil, owner: owner, fieldPrefix: fieldPath + ".")
                else { return nil }
                return .anonymousStructure(nested)
            }
            guard let name = modelNamed(declaration, requestedAs: spelling) else {
                return unsupported("has type '\(spelling)', which HandlerKit cannot convert")
            }
            return .structure(name: name)
        case TypeKind.pointer:
            let pointee = clang.canonical(clang.pointee(canonical))
            guard TypeKind.plainChars.contains(pointee.kind), clang.isConst(pointee) else {
                return unsupported("is a pointer ('\(spelling)'); only 'const char *' strings are supported")
            }
            return .string
        case TypeKind.constantArray:
            let count = clang.arraySize(canonical)
            guard count > 0, let size = Int(exactly: count) else {
                return unsupported("is an array of \(count) elements ('\(spelling)')")
            }
            let element = clang.canonical(clang.arrayElement(canonical))
            if TypeKind.plainChars.contains(element.kind) {
                return .characterArray(count: size)
            }
            guard let elementType = fieldType(element, owner: owner, fieldPath: fieldPath + "[]", location: location)
            else { return nil }
            return .array(element: elementType, count: size)
        case TypeKind.incompleteArray:
            return unsupported("is a flexible array member ('\(spelling)'); only fixed-size arrays are supported")
        default:
            if let integer = integer(canonical) { return .integer(integer) }
            return unsupported("has type '\(spelling)', which HandlerKit cannot convert")
        }
    }

    /// The integer type of a canonical builtin type, or nil when it is not an integer HandlerKit converts.
    private func integer(_ canonical: HKClangType) -> CIntegerType? {
        let isSigned: Bool
        if TypeKind.signedIntegers.contains(canonical.kind) {
            isSigned = true
        } else if TypeKind.unsignedIntegers.contains(canonical.kind) {
            isSigned = false
        } else if canonical.kind == TypeKind.wideChar {
            #if os(Windows)
            isSigned = false
            #else
            isSigned = true
            #endif
        } else {
            return nil
        }
        guard let size = clang.size(canonical), [1, 2, 4, 8].contains(size) else { return nil }
        return CIntegerType(isSigned: isSigned, bits: size * 8)
    }
}
