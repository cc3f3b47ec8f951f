import CLibClang

/// Every struct, union, enum and typedef of a translation unit, by name, and the names Swift gives to
/// unnamed structs and enums (the typedef that names them).
struct DeclarationIndex {
    private(set) var typedefs: [String: HKClangCursor] = [:]
    private(set) var tags: [String: HKClangCursor] = [:]
    private var typedefNames = CursorTable<String>()
    private let clang: Clang

    init(unit: TranslationUnit) {
        clang = unit.clang
        visit(unit.clang.children(unit.cursor))
    }

    private mutating func visit(_ cursors: [HKClangCursor]) {
        for cursor in cursors {
            let kind = clang.kind(cursor)
            switch kind {
            case CursorKind.typedefDecl:
                let name = clang.spelling(cursor)
                guard typedefs[name] == nil else { continue }
                typedefs[name] = cursor
                if let declaration = underlyingDeclaration(ofTypedef: cursor),
                    !Self.isIdentifier(clang.spelling(declaration)),
                    typedefNames[declaration, clang] == nil
                {
                    typedefNames[declaration, clang] = name
                }
            case CursorKind.structDecl, CursorKind.unionDecl, CursorKind.enumDecl:
                let name = clang.spelling(cursor)
                if Self.isIdentifier(name), tags[name] == nil || clang.definition(cursor) != nil {
                    tags[name] = clang.definition(cursor) ?? cursor
                }
                if kind != CursorKind.enumDecl {
                    // In C, a struct declared inside a struct has file scope.
                    visit(clang.children(cursor))
                }
            default:
                continue
            }
        }
    }

    /// The record or enum declaration (its definition when there is one) behind a typedef, if any.
    func underlyingDeclaration(ofTypedef cursor: HKClangCursor) -> HKClangCursor? {
        let canonical = clang.canonical(clang.typedefUnderlyingType(cursor))
        guard canonical.kind == TypeKind.record || canonical.kind == TypeKind.enumeration else { return nil }
        return normalized(clang.declaration(canonical))
    }

    /// A declaration's definition when it has one, so that every reference compares equal.
    func normalized(_ cursor: HKClangCursor) -> HKClangCursor {
        clang.definition(cursor) ?? cursor
    }

    /// The name Swift imports a struct, union or enum under: its tag, or else the typedef naming it.
    /// Nil for a truly anonymous one.
    func swiftName(of declaration: HKClangCursor) -> String? {
        let spelling = clang.spelling(declaration)
        if Self.isIdentifier(spelling) { return spelling }
        return typedefNames[normalized(declaration), clang]
    }

    /// Whether `text` is a C identifier. Unnamed declarations are spelled differently by different
    /// libclang versions ("", "struct (unnamed at …)", "(anonymous struct at …)"); none is an identifier.
    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || first.properties.isAlphabetic,
            first.isASCII
        else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0 == "_" || $0.properties.isAlphabetic
                    || ("0"..."9").contains($0))
        }
    }
}

/// A small map keyed by cursor (libclang cursors have a hash and an equality, but are not Hashable).
struct CursorTable<Value> {
    private var buckets: [UInt32: [(HKClangCursor, Value)]] = [:]

    subscript(cursor: HKClangCursor, clang: Clang) -> Value? {
        get {
            buckets[clang.hash(cursor)]?.first { clang.equal($0.0, cursor) }?.1
        }
        set {
            let hash = clang.hash(cursor)
            var bucket = buckets[hash] ?? []
            bucket.removeAll { clang.equal($0.0, cursor) }
            if let newValue { bucket.append((cursor, newValue)) }
            buckets[hash] = bucket
        }
    }
}
