/// The libclang cursor and type kinds the reader uses (values of CXCursorKind and CXTypeKind, which
/// are stable across libclang versions).
enum CursorKind {
    static let structDecl: Int32 = 2
    static let unionDecl: Int32 = 3
    static let enumDecl: Int32 = 5
    static let fieldDecl: Int32 = 6
    static let enumConstantDecl: Int32 = 7
    static let typedefDecl: Int32 = 20
    static let firstInvalid: Int32 = 70
    static let lastInvalid: Int32 = 73
}

enum TypeKind {
    static let invalid: Int32 = 0
    static let bool: Int32 = 3
    static let charUnsigned: Int32 = 4
    static let unsignedChar: Int32 = 5
    static let char16: Int32 = 6
    static let char32: Int32 = 7
    static let unsignedShort: Int32 = 8
    static let unsignedInt: Int32 = 9
    static let unsignedLong: Int32 = 10
    static let unsignedLongLong: Int32 = 11
    static let unsignedInt128: Int32 = 12
    static let charSigned: Int32 = 13
    static let signedChar: Int32 = 14
    static let wideChar: Int32 = 15
    static let short: Int32 = 16
    static let int: Int32 = 17
    static let long: Int32 = 18
    static let longLong: Int32 = 19
    static let int128: Int32 = 20
    static let float: Int32 = 21
    static let double: Int32 = 22
    static let pointer: Int32 = 101
    static let record: Int32 = 105
    static let enumeration: Int32 = 106
    static let constantArray: Int32 = 112
    static let incompleteArray: Int32 = 114

    static let unsignedIntegers: Set<Int32> = [
        charUnsigned, unsignedChar, char16, char32, unsignedShort, unsignedInt, unsignedLong, unsignedLongLong,
    ]
    static let signedIntegers: Set<Int32> = [charSigned, signedChar, short, int, long, longLong]
    /// Plain `char`, signed or not depending on the target.
    static let plainChars: Set<Int32> = [charSigned, charUnsigned]
}

/// libclang's CXDiagnosticSeverity values.
enum DiagnosticSeverity {
    static let warning: Int32 = 2
    static let error: Int32 = 3
    static let fatal: Int32 = 4
}
