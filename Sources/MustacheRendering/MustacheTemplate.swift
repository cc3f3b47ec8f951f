/// A parsed logic-free Mustache template (see `MustacheParser` for the tags it knows).
///
/// Rendering looks each name up in the value of the innermost enclosing section first, then outwards
/// to the value the template is rendered with (values conform to `MustacheParent`; `.` is the current
/// value itself, `a.b` looks `b` up in `a`). A section renders its body once per element of an array
/// (empty: not at all), once for `true`, not for `false` or a missing value, and once with any other
/// value as the innermost value; an inverted section renders exactly when a section would not. A
/// variable is written with `String(describing:)`, HTML-escaped unless the content type is TEXT.
package struct MustacheTemplate: Sendable {
    let nodes: [MustacheNode]

    /// Parses `text`; `name` is used in error messages.
    package init(parsing text: String, named name: String = "template") throws(MustacheError) {
        var parser = MustacheParser(text, template: name)
        nodes = try parser.parse()
    }

    /// The template rendered with `value` as the outermost value names are looked up in.
    package func render(_ value: Any) -> String {
        var renderer = MustacheRenderer(stack: [value])
        renderer.render(nodes)
        return renderer.output
    }
}

/// Renders nodes against a stack of values, innermost last.
struct MustacheRenderer {
    var stack: [Any]
    var output = ""

    mutating func render(_ nodes: [MustacheNode]) {
        for node in nodes {
            switch node {
            case .text(let text):
                output += text
            case .variable(let name, let escaped):
                guard let value = lookUp(name) else { continue }
                let text = String(describing: value)
                output += escaped ? HTMLEscaping.escaped(text) : text
            case .section(let name, let inverted, let body):
                let value = lookUp(name)
                if inverted {
                    if !Self.isTruthy(value) { render(body) }
                } else {
                    renderSection(body, value)
                }
            }
        }
    }

    private mutating func renderSection(_ body: [MustacheNode], _ value: Any?) {
        switch value {
        case let elements as [Any]:
            for element in elements { render(body, within: element) }
        case let flag as Bool:
            if flag { render(body) }
        case .some(let value):
            render(body, within: value)
        case .none:
            break
        }
    }

    private mutating func render(_ body: [MustacheNode], within value: Any) {
        stack.append(value)
        render(body)
        stack.removeLast()
    }

    /// Whether a section over `value` renders its body at least once.
    private static func isTruthy(_ value: Any?) -> Bool {
        switch value {
        case let elements as [Any]: !elements.isEmpty
        case let flag as Bool: flag
        case .some: true
        case .none: false
        }
    }

    /// The value of `name`: `.`, a plain name looked up from the innermost value outwards, or a dotted
    /// path whose first part is looked up that way and the rest in what it found.
    private func lookUp(_ name: String) -> Any? {
        if name == "." { return stack.last.flatMap(Self.unwrapped) }
        var parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var value: Any?
        if parts.first == "" {
            // `.name`: the current value only, no lookup outwards.
            parts.removeFirst()
            value = stack.last
        } else {
            let first = parts.removeFirst()
            value = nil
            for candidate in stack.reversed() {
                if let found = Self.child(first, of: candidate) {
                    value = found
                    break
                }
            }
        }
        for part in parts {
            guard let current = value else { return nil }
            value = Self.child(part, of: current)
        }
        return value.flatMap(Self.unwrapped)
    }

    private static func child(_ name: String, of value: Any) -> Any? {
        guard let parent = unwrapped(value) as? MustacheParent else { return nil }
        return parent.child(named: name).flatMap(unwrapped)
    }

    /// `value` with any `Optional` wrapping removed; `nil` for an empty optional.
    private static func unwrapped(_ value: Any) -> Any? {
        if let optional = value as? any OptionalValue { return optional.wrappedAny.flatMap(unwrapped) }
        return value
    }
}

/// Lets `unwrapped` see through an `Optional` stored in an `Any`.
private protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedAny: Any? { self.map { $0 } }
}
