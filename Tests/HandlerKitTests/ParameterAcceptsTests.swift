@_spi(HandlerKitGenerated) import HandlerKit
import Testing

/// `HandlerParameter.accepts(_:)`: whether values of a type can be passed, decided from the types alone.
@Suite struct ParameterAcceptsTests {
    class Base {}
    final class Derived: Base, @unchecked Sendable {}
    protocol Shape {}

    @Test func concreteTypesSubclassesAndAnyAreAccepted() {
        #expect(HandlerParameter.required("n", Int.self).accepts(Int.self) == true)
        #expect(HandlerParameter.required("n", Int.self).accepts(String.self) == false)
        #expect(HandlerParameter.required("n", Int.self).accepts(Int64.self) == false)
        #expect(HandlerParameter.required("b", Base.self).accepts(Derived.self) == true)
        #expect(HandlerParameter.required("d", Derived.self).accepts(Base.self) == false)
        #expect(HandlerParameter.required("a", Any.self).accepts(Point.self) == true)
        #expect(HandlerParameter.required("s", (any Sendable).self).accepts(Int.self) == true)
        #expect(HandlerParameter.required("o", AnyObject.self).accepts(Derived.self) == true)
        #expect(HandlerParameter.required("o", AnyObject.self).accepts(Int.self) == false)
    }

    @Test func anOptionalTypeNeedsAnOptionalParameter() {
        // A nil value is absent: a mandatory parameter could go without a value.
        #expect(HandlerParameter.required("n", Int.self).accepts(Int?.self) == false)
        #expect(HandlerParameter.optional("n", Int.self).accepts(Int?.self) == true)
        #expect(HandlerParameter.optional("n", Int.self).accepts(String?.self) == false)
        #expect(HandlerParameter.optional("n", Int.self).accepts(Int.self) == true)
    }

    @Test func anotherProtocolIsDecidedPerValue() {
        #expect(HandlerParameter.required("shape", (any Shape).self).accepts(Int.self) == nil)
    }
}
