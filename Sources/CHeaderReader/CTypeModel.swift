/// A position in a header file, as the user wrote it (for code from a macro, where the macro is used).
package struct CSourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The header's path as libclang saw it (absolute for the headers HandlerKit passes in).
    package var file: String
    /// 1-based line.
    package var line: Int
    /// 1-based column.
    package var column: Int

    package init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the form compilers print.
    package var description: String { "\(file):\(line):\(column)" }
}

/// A C integer type, described by what matters for a conversion: signedness and width on the target.
package struct CIntegerType: Sendable, Hashable, CustomStringConvertible {
    /// Whether the type is signed (`int`, `int64_t`, `NSInteger`) or unsigned (`uint8_t`, `size_t`).
    package var isSigned: Bool
    /// Width in bits on the parsed target: 8, 16, 32 or 64.
    package var bits: Int

    package init(isSigned: Bool, bits: Int) {
        self.isSigned = isSigned
        self.bits = bits
    }

    /// The Swift fixed-width integer type of this width and signedness, e.g. `Int32` or `UInt8`.
    package var swiftFixedWidthName: String { (isSigned ? "Int" : "UInt") + String(bits) }

    package var description: String { swiftFixedWidthName }
}

/// What a struct field holds, reduced to the kinds HandlerKit can convert to and from JSON.
package indirect enum CFieldType: Sendable, Hashable {
    /// A signed or unsigned integer (including plain `char`, `wchar_t`, and anonymous enums, which Swift
    /// imports as their integer type).
    case integer(CIntegerType)
    /// `float` (32 bits) or `double` (64 bits).
    case floatingPoint(bits: Int)
    /// `bool` / `_Bool`.
    case bool
    /// A named C enum; its declaration is in ``CHeaderModel/declarations``.
    case enumeration(name: String)
    /// A named C struct; its declaration is in ``CHeaderModel/declarations``.
    case structure(name: String)
    /// A struct type without a name, declared inline for this field (`struct { int a; } inner;`).
    case anonymousStructure(CStruct)
    /// A fixed-size array (`int32_t values[4]`); Swift imports it as a tuple of `count` elements.
    case array(element: CFieldType, count: Int)
    /// `const char *`: a NUL-terminated string, or NULL.
    case string
    /// `char name[N]`: a NUL-terminated string stored inline in at most `count` bytes.
    case characterArray(count: Int)
}

/// One field of a C struct.
package struct CField: Sendable, Hashable {
    /// The field's name. Fields of anonymous struct members (C11 `struct { int a; };` inside a struct)
    /// are listed in place of that member, as Swift exposes them: as properties of the outer struct.
    package var name: String
    /// What the field holds.
    package var type: CFieldType
    /// The field's type as written in the header, e.g. `int32_t`, `const char *`, `HKColor`.
    package var cTypeSpelling: String
    /// The bit-field width, or nil when the field is not a bit-field.
    package var bitWidth: Int?
    /// Where the field is declared.
    package var location: CSourceLocation?

    package init(
        name: String, type: CFieldType, cTypeSpelling: String, bitWidth: Int? = nil,
        location: CSourceLocation? = nil
    ) {
        self.name = name
        self.type = type
        self.cTypeSpelling = cTypeSpelling
        self.bitWidth = bitWidth
        self.location = location
    }
}

/// A C struct whose every field can be converted.
package struct CStruct: Sendable, Hashable {
    /// The name Swift imports the struct under: its tag (`struct HKLine` → `HKLine`), or for an unnamed
    /// struct the typedef that names it (`typedef struct {…} HKPoint;` → `HKPoint`). Nil for an
    /// anonymous struct declared inline for a field.
    package var name: String?
    /// The fields, in declaration order.
    package var fields: [CField]
    /// Where the struct is defined.
    package var location: CSourceLocation?

    package init(name: String?, fields: [CField], location: CSourceLocation? = nil) {
        self.name = name
        self.fields = fields
        self.location = location
    }
}

/// The value of an enum case, exact for every underlying type.
package enum CEnumValue: Sendable, Hashable, CustomStringConvertible {
    /// The value of a case of an enum with a signed underlying type.
    case signed(Int64)
    /// The value of a case of an enum with an unsigned underlying type.
    case unsigned(UInt64)

    /// The value as a Swift integer literal.
    package var description: String {
        switch self {
        case .signed(let value): String(value)
        case .unsigned(let value): String(value)
        }
    }
}

/// One case (enumerator) of a C enum.
package struct CEnumCase: Sendable, Hashable {
    /// The enumerator's C name, e.g. `HKColorRed`.
    package var name: String
    /// Its value.
    package var value: CEnumValue

    package init(name: String, value: CEnumValue) {
        self.name = name
        self.value = value
    }
}

/// A named C enum, including `typedef enum : int32_t {…} Name;` and `NS_ENUM`/`CF_ENUM` typedefs.
package struct CEnum: Sendable, Hashable {
    /// The name Swift imports the enum under (its tag, or the typedef that names it).
    package var name: String
    /// The underlying integer type (Swift's `rawValue` type).
    package var underlyingType: CIntegerType
    /// The underlying type as written, e.g. `NSInteger`, `uint8_t`, or `unsigned int` when implicit.
    package var underlyingTypeSpelling: String
    /// The cases in declaration order.
    package var cases: [CEnumCase]
    /// Where the enum is defined.
    package var location: CSourceLocation?

    package init(
        name: String, underlyingType: CIntegerType, underlyingTypeSpelling: String,
        cases: [CEnumCase], location: CSourceLocation? = nil
    ) {
        self.name = name
        self.underlyingType = underlyingType
        self.underlyingTypeSpelling = underlyingTypeSpelling
        self.cases = cases
        self.location = location
    }
}

/// A C type declaration HandlerKit can convert: a struct or an enum.
package enum CDeclaration: Sendable, Hashable {
    case structure(CStruct)
    case enumeration(CEnum)

    /// The name Swift imports the type under.
    package var name: String {
        switch self {
        case .structure(let value): value.name ?? ""
        case .enumeration(let value): value.name
        }
    }

    /// Where the type is defined.
    package var location: CSourceLocation? {
        switch self {
        case .structure(let value): value.location
        case .enumeration(let value): value.location
        }
    }
}
