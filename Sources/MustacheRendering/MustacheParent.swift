/// A value whose template variables are looked up by name, without reflection.
///
/// A section's value, or the value a template is rendered with, that conforms is asked for each name
/// the template uses; `nil` means "not mine", and the lookup goes on to the enclosing values.
package protocol MustacheParent {
    /// The value of the variable `name`, or `nil` when this value has none of that name.
    func child(named name: String) -> Any?
}

extension Dictionary: MustacheParent where Key == String {
    package func child(named name: String) -> Any? { self[name] }
}
