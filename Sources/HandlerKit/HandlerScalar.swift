#if canImport(FoundationEssentials)
import FoundationEssentials  // Data and URL, without the rest of Foundation (a client build indexes less)
#else
import Foundation
#endif

/// The value types HandlerKit converts directly, without going through `Encoder`/`Decoder`.
protocol HandlerScalar {
    /// The value, if `value` holds exactly this type (no truncation, no rounding of integers).
    static func exactly(_ value: HandlerValue) -> Self?
    var handlerValue: HandlerValue { get }
}

extension HandlerScalar where Self: FixedWidthInteger {
    static func exactly(_ value: HandlerValue) -> Self? {
        guard case .number(let text) = value else { return nil }
        return Self(text)  // nil for fractions, exponents and out-of-range values
    }
    var handlerValue: HandlerValue { .number(String(self)) }
}

extension Int: HandlerScalar {}
extension Int8: HandlerScalar {}
extension Int16: HandlerScalar {}
extension Int32: HandlerScalar {}
extension Int64: HandlerScalar {}
extension UInt: HandlerScalar {}
extension UInt8: HandlerScalar {}
extension UInt16: HandlerScalar {}
extension UInt32: HandlerScalar {}
extension UInt64: HandlerScalar {}

extension HandlerScalar where Self: BinaryFloatingPoint & LosslessStringConvertible {
    static func exactly(_ value: HandlerValue) -> Self? {
        switch value {
        case .number(let text): return Self(text)
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        default: return nil
        }
    }

    /// Finite values as their shortest exact text (`description` round-trips); others as strings.
    var handlerValue: HandlerValue {
        if isNaN { return .string("NaN") }
        if isInfinite { return .string(self < 0 ? "-Infinity" : "Infinity") }
        return .number(description)
    }
}

extension Double: HandlerScalar {}
extension Float: HandlerScalar {}

extension Bool: HandlerScalar {
    static func exactly(_ value: HandlerValue) -> Bool? {
        guard case .bool(let flag) = value else { return nil }
        return flag
    }
    var handlerValue: HandlerValue { .bool(self) }
}

extension String: HandlerScalar {
    static func exactly(_ value: HandlerValue) -> String? {
        guard case .string(let text) = value else { return nil }
        return text
    }
    var handlerValue: HandlerValue { .string(self) }
}

/// `Data` is stored as a base64 string (its `Codable` form, an array of numbers, is bulky).
extension Data: HandlerScalar {
    static func exactly(_ value: HandlerValue) -> Data? {
        guard case .string(let text) = value else { return nil }
        return Data(base64Encoded: text)
    }
    var handlerValue: HandlerValue { .string(base64EncodedString()) }
}

/// `URL` is stored as its absolute string.
extension URL: HandlerScalar {
    static func exactly(_ value: HandlerValue) -> URL? {
        guard case .string(let text) = value else { return nil }
        return URL(string: text)
    }
    var handlerValue: HandlerValue { .string(absoluteString) }
}
