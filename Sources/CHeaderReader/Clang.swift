import CLibClang

/// Swift-friendly calls into a loaded libclang: Swift strings and arrays instead of malloc'd memory.
/// Cursors and types are only valid while their translation unit is alive.
struct Clang {
    let library: LibClang

    private var lib: OpaquePointer { library.handle }

    func kind(_ cursor: HKClangCursor) -> Int32 { hk_clang_cursor_kind(lib, cursor) }

    func spelling(_ cursor: HKClangCursor) -> String { LibClang.take(hk_clang_cursor_spelling(lib, cursor)) }

    func type(_ cursor: HKClangCursor) -> HKClangType { hk_clang_cursor_type(lib, cursor) }

    func location(_ cursor: HKClangCursor) -> CSourceLocation? {
        Self.take(hk_clang_cursor_location(lib, cursor))
    }

    /// The definition of the entity the cursor refers to, or nil when there is none (forward declaration).
    func definition(_ cursor: HKClangCursor) -> HKClangCursor? {
        let definition = hk_clang_cursor_definition(lib, cursor)
        return isNull(definition) ? nil : definition
    }

    func isNull(_ cursor: HKClangCursor) -> Bool {
        if hk_clang_cursor_is_null(lib, cursor) != 0 { return true }
        let kind = kind(cursor)
        return kind >= CursorKind.firstInvalid && kind <= CursorKind.lastInvalid
    }

    func equal(_ a: HKClangCursor, _ b: HKClangCursor) -> Bool { hk_clang_cursors_equal(lib, a, b) != 0 }

    func hash(_ cursor: HKClangCursor) -> UInt32 { hk_clang_cursor_hash(lib, cursor) }

    func children(_ cursor: HKClangCursor) -> [HKClangCursor] {
        var items: UnsafeMutablePointer<HKClangCursor>?
        let count = hk_clang_children(lib, cursor, &items)
        return Self.takeArray(items, count)
    }

    /// The fields of a record type, in order, including unnamed fields of anonymous members.
    func fields(_ record: HKClangType) -> [HKClangCursor] {
        var items: UnsafeMutablePointer<HKClangCursor>?
        let count = hk_clang_record_fields(lib, record, &items)
        return Self.takeArray(items, count)
    }

    func typedefUnderlyingType(_ cursor: HKClangCursor) -> HKClangType {
        hk_clang_typedef_underlying_type(lib, cursor)
    }

    func enumIntegerType(_ cursor: HKClangCursor) -> HKClangType { hk_clang_enum_integer_type(lib, cursor) }

    func enumConstantValue(_ cursor: HKClangCursor) -> Int64 {
        Int64(hk_clang_enum_constant_value(lib, cursor))
    }

    func enumConstantUnsignedValue(_ cursor: HKClangCursor) -> UInt64 {
        UInt64(hk_clang_enum_constant_unsigned_value(lib, cursor))
    }

    /// The bit-field width, or nil for an ordinary field.
    func bitWidth(_ cursor: HKClangCursor) -> Int? {
        let width = hk_clang_field_bit_width(lib, cursor)
        return width < 0 ? nil : Int(width)
    }

    func canonical(_ type: HKClangType) -> HKClangType { hk_clang_canonical_type(lib, type) }

    func spelling(_ type: HKClangType) -> String { LibClang.take(hk_clang_type_spelling(lib, type)) }

    func declaration(_ type: HKClangType) -> HKClangCursor { hk_clang_type_declaration(lib, type) }

    func pointee(_ type: HKClangType) -> HKClangType { hk_clang_pointee_type(lib, type) }

    func arrayElement(_ type: HKClangType) -> HKClangType { hk_clang_array_element_type(lib, type) }

    func arraySize(_ type: HKClangType) -> Int64 { Int64(hk_clang_array_size(lib, type)) }

    /// Size in bytes, or nil when libclang cannot tell (incomplete or dependent type).
    func size(_ type: HKClangType) -> Int? {
        let size = hk_clang_type_size(lib, type)
        return size < 0 ? nil : Int(size)
    }

    func isConst(_ type: HKClangType) -> Bool { hk_clang_type_is_const(lib, type) != 0 }

    static func take(_ location: HKClangLocation) -> CSourceLocation? {
        defer { hk_clang_location_free(location) }
        guard let file = location.file else { return nil }
        return CSourceLocation(file: String(cString: file), line: Int(location.line), column: Int(location.column))
    }

    private static func takeArray(_ items: UnsafeMutablePointer<HKClangCursor>?, _ count: Int) -> [HKClangCursor] {
        guard let items else { return [] }
        defer { hk_free(items) }
        return Array(UnsafeBufferPointer(start: items, count: count))
    }
}
