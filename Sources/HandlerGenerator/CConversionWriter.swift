import CHeaderReader

/// The statements of a C struct's `init(from:)` and `encode(to:)`, field by field.
///
/// JSON form: an object with one member per field, keyed by the field's C name; integers, floats, bools
/// and enums (their raw value) as numbers; a named struct field as that struct's object (its own
/// generated conformance); an anonymous nested struct as a nested object; a fixed-size array (a tuple in
/// Swift) as an array of exactly its length; `char name[N]` as a string; `const char *` as a string or
/// `null` (decoded strings are kept in the runtime's `CStringStorage`; see `CValueCoding`).
///
/// Decoding starts from the zero value (`self.init()`) and assigns each field through its path
/// (`self.inner.values.2`), so every field's Swift type is inferred rather than spelled: `long` is `Int`
/// in Swift but 64 bits in C, and the generated code never has to know.
struct CConversionWriter {
    /// The lines of `encode(to:)` after its `var container = …` line.
    private(set) var encodeLines: [String] = []
    /// The lines of `init(from:)` after its `let container = …` line.
    private(set) var decodeLines: [String] = []
    private var containerCount = 0

    /// The statements for every field of `structure`, read from `self` and the `container` locals.
    init(_ structure: CStruct) {
        for field in structure.fields {
            add(field, of: "self", container: "container", keyed: true)
        }
    }

    /// A fresh local name for a nested container.
    private mutating func nextContainer() -> String {
        containerCount += 1
        return "nested\(containerCount)"
    }

    private mutating func add(_ field: CField, of owner: String, container: String, keyed: Bool) {
        let key = "\"\(SwiftSource.stringLiteralContent(field.name))\""
        let path = owner + "." + SwiftSource.identifier(field.name)
        if let bits = field.bitWidth, case .integer = field.type, keyed {
            // Swift's setter would drop the bits that do not fit: checked instead.
            encodeLines.append("try \(container).encode(\(path), forKey: \(key))")
            decodeLines.append("try \(container).decodeCBitField(&\(path), bits: \(bits), forKey: \(key))")
            return
        }
        add(field.type, at: path, container: container, key: keyed ? key : nil)
    }

    /// Statements for the value at `path` of `type`, in `container` under `key` (nil: the next element
    /// of an unkeyed container).
    private mutating func add(_ type: CFieldType, at path: String, container: String, key: String?) {
        let forKey = key.map { ", forKey: \($0)" } ?? ""
        let keyOnly = key.map { "forKey: \($0)" } ?? ""
        switch type {
        case .integer, .floatingPoint, .bool, .enumeration, .structure:
            encodeLines.append("try \(container).encode(\(path)\(forKey))")
            decodeLines.append("try \(container).decodeCField(&\(path)\(forKey))")
        case .characterArray(let count):
            encodeLines.append("try \(container).encodeCString(\(path), capacity: \(count)\(forKey))")
            decodeLines.append("try \(container).decodeCString(&\(path), capacity: \(count)\(forKey))")
        case .anonymousStructure(let inner):
            let nested = nextContainer()
            let binding = inner.fields.isEmpty ? "_" : nested
            encodeLines.append(
                "\(inner.fields.isEmpty ? "_" : "var \(nested)") = \(container).nestedContainer(keyedBy: CFieldKey.self\(forKey))"
            )
            decodeLines.append(
                "\(inner.fields.isEmpty ? "_" : "let \(binding)") = try \(container).nestedContainer(keyedBy: CFieldKey.self\(forKey))"
            )
            for field in inner.fields {
                add(field, of: path, container: nested, keyed: true)
            }
        case .array(let element, let count):
            let nested = nextContainer()
            let declaration = count == 0 ? "_" : "var \(nested)"
            encodeLines.append("\(declaration) = \(container).nestedUnkeyedContainer(\(keyOnly))")
            decodeLines.append("\(declaration) = try \(container).nestedCArray(count: \(count)\(forKey))")
            for index in 0..<max(count, 0) {
                add(element, at: "\(path).\(index)", container: nested, key: nil)
            }
        case .string:
            encodeLines.append("try \(container).encodeCStringPointer(\(path)\(forKey))")
            decodeLines.append("try \(container).decodeCStringPointer(&\(path)\(forKey))")
        }
    }
}
