#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A registry's handlers and parameter names keyed by their UTF-8 bytes, so that reading a
/// document resolves `id` and `invalidation` and names its bound values straight from the
/// document's bytes: no `String` is created for them and none is hashed.
///
/// Immutable; the registry builds a new one whenever a module is registered, and a document's
/// parse takes the current one once.
final class RegistryIndex: Sendable {
    private let handlers: ByteKeyedTable<HandlerDescriptor>
    private let parameterNames: ByteKeyedTable<String>

    /// An index of no handlers.
    static let empty = RegistryIndex([])

    init(_ descriptors: [HandlerDescriptor]) {
        // Former ids find the current handler; former parameter names are read as themselves and
        // renamed once the document's handler is known (`Handler.renameFormerParameters`).
        handlers = ByteKeyedTable(
            descriptors.flatMap { descriptor in
                (CollectionOfOne(descriptor.id) + descriptor.formerIDs).map { (Array($0.utf8), descriptor) }
            })
        var names: [String: [UInt8]] = [:]
        for descriptor in descriptors {
            for parameter in descriptor.parameters {
                for name in CollectionOfOne(parameter.name) + parameter.formerNames { names[name] = Array(name.utf8) }
            }
        }
        parameterNames = ByteKeyedTable(names.map { ($0.value, $0.key) })
    }

    /// The handler whose id is exactly the bytes `utf8`, if any.
    func descriptor(utf8: UnsafeBufferPointer<UInt8>) -> HandlerDescriptor? {
        handlers.value(for: utf8)
    }

    /// The parameter name (of any registered handler) that is exactly the bytes `utf8`, if any.
    func parameterName(utf8: UnsafeBufferPointer<UInt8>) -> String? {
        parameterNames.value(for: utf8)
    }
}

/// An open-addressing hash table (linear probing, at most half full) from byte strings to values,
/// keyed by 64-bit FNV-1a: the keys are short and come from the app's own generated code.
private struct ByteKeyedTable<Value: Sendable>: Sendable {
    /// `hashes[i]`, `keys[i]` and `values[i]` belong together.
    private var hashes: [UInt64] = []
    private var keys: [[UInt8]] = []
    private var values: [Value] = []
    /// `slots[i]` is an index into `values`, or -1; the count is a power of two.
    private var slots: [Int32]

    init(_ pairs: [([UInt8], Value)]) {
        var capacity = 1
        while capacity < pairs.count * 2 { capacity *= 2 }
        slots = Array(repeating: -1, count: capacity)
        for (key, value) in pairs {
            let hash = key.withUnsafeBufferPointer(Self.hash)
            var slot = Int(truncatingIfNeeded: hash) & (capacity - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Int32(values.count)
            hashes.append(hash)
            keys.append(key)
            values.append(value)
        }
    }

    func value(for key: UnsafeBufferPointer<UInt8>) -> Value? {
        let hash = Self.hash(key)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 {
            let position = Int(slots[slot])
            if hashes[position] == hash, Self.equal(keys[position], key) { return values[position] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private static func equal(_ stored: [UInt8], _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard stored.count == key.count else { return false }
        return stored.withUnsafeBufferPointer { stored in
            guard let left = stored.baseAddress, let right = key.baseAddress else { return true }  // both empty
            return memcmp(left, right, key.count) == 0
        }
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
