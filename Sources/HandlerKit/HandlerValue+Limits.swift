/// Where a value sits in a document: how many arrays and objects enclose it there, and its path.
///
/// Writing a value checks it against the limits that reading its document enforces
/// (`DecodingLimits.default`): a value that nests too deep for its place, or that is larger than a
/// whole document may be, could never be read back, so it is refused where it enters.
struct ValuePlace: Sendable {
    /// The arrays and objects around the value in its document.
    var enclosingLevels: Int
    /// The value's path in its document (`bound.items`, a payload value's name); empty for a value
    /// encoded alone.
    var path: String

    /// A value encoded alone: its own outermost array or object is level 1.
    static let alone = ValuePlace(enclosingLevels: 0, path: "")

    /// A value bound to `name`: inside a handler document's object and its `bound` object.
    static func bound(_ name: String) -> ValuePlace {
        ValuePlace(enclosingLevels: 2, path: "bound." + name)
    }

    /// The deepest level a document read with `DecodingLimits.default` may have.
    static var maximumLevel: Int { DecodingLimits.default.effectiveDepth }

    /// The largest document, in bytes, that `DecodingLimits.default` reads.
    static var maximumSize: Int { DecodingLimits.default.maximumDocumentSize }

    /// `path` followed by a coding path, e.g. `bound.items[3].children[0]`.
    func path(appending codingPath: [any CodingKey]) -> String {
        codingPath.reduce(path) { path, key in
            if let index = key as? IndexKey { return ValuePath.appending(path, index: index.intValue ?? 0) }
            return ValuePath.appending(path, member: key.stringValue)
        }
    }
}

/// Paths of values in a document, as limit errors show them: `items[3].children[0]`.
enum ValuePath {
    static func appending(_ path: String, member: String) -> String {
        path.isEmpty ? member : path + "." + member
    }

    static func appending(_ path: String, index: Int) -> String {
        path + "[\(index)]"
    }

    /// `path`, or `$` for the value itself.
    static func shown(_ path: String) -> String {
        path.isEmpty ? "$" : path
    }
}

extension HandlerValue {
    /// What one walk over a value found. The walk is iterative (an explicit stack, never recursion),
    /// so a value of any depth, however it was built, is measured without risk to the stack.
    struct Survey {
        /// Whether an array or object lies deeper than the maximum level.
        var exceedsDepth = false
        /// Whether a `.number` holds text that is not a JSON number.
        var hasInvalidNumber = false
        /// An upper bound of the value's compact JSON size in bytes (every string byte counted as if
        /// escaped); exact size needs a write, which only a bound over a limit calls for.
        var sizeBound = 0
    }

    /// Walks the value placed at `place`, stopping at the first array or object deeper than
    /// `maximumLevel`. Members are visited in no particular order: see `firstProblem` for where.
    func survey(at place: ValuePlace, maximumLevel: Int, checkingNumbers: Bool) -> Survey {
        var survey = Survey()
        // A scalar (most bound values) is measured without allocating the stack.
        var first: (value: HandlerValue, level: Int)? = (self, place.enclosingLevels)
        var pending: [(value: HandlerValue, level: Int)] = []
        while let (value, level) = first ?? pending.popLast() {
            first = nil
            switch value {
            case .null: survey.sizeBound += 4
            case .bool: survey.sizeBound += 5
            case .number(let text):
                survey.sizeBound += text.utf8.count
                if checkingNumbers && !survey.hasInvalidNumber && !JSONReader.isNumber(text) {
                    survey.hasInvalidNumber = true
                }
            case .string(let text): survey.sizeBound += Self.stringSizeBound(text)
            case .array(let elements):
                guard level < maximumLevel else {
                    survey.exceedsDepth = true
                    return survey
                }
                survey.sizeBound += 2 + elements.count
                for element in elements { pending.append((element, level + 1)) }
            case .object(let members):
                guard level < maximumLevel else {
                    survey.exceedsDepth = true
                    return survey
                }
                survey.sizeBound += 2 + members.count
                for (name, member) in members {
                    survey.sizeBound += Self.stringSizeBound(name) + 1
                    pending.append((member, level + 1))
                }
            }
        }
        return survey
    }

    /// The first problem in document order (members by name, as they are written), for messages.
    enum LimitProblem: Equatable {
        /// The array or object at `path` lies deeper than the maximum level.
        case tooDeep(path: String)
        /// The `.number` at `path` holds `text`, which is not a JSON number.
        case invalidNumber(text: String, path: String)
    }

    /// The first problem `survey` would find, in document order, with its path after `place.path`;
    /// `nil` when there is none. Iterative, like `survey`.
    func firstProblem(at place: ValuePlace, maximumLevel: Int, checkingNumbers: Bool) -> LimitProblem? {
        var pending: [(value: HandlerValue, level: Int, path: String)] = [(self, place.enclosingLevels, place.path)]
        while let (value, level, path) = pending.popLast() {
            switch value {
            case .number(let text) where checkingNumbers && !JSONReader.isNumber(text):
                return .invalidNumber(text: text, path: path)
            case .array(let elements):
                guard level < maximumLevel else { return .tooDeep(path: path) }
                for (index, element) in elements.enumerated().reversed() {
                    pending.append((element, level + 1, ValuePath.appending(path, index: index)))
                }
            case .object(let members):
                guard level < maximumLevel else { return .tooDeep(path: path) }
                for name in JSONWriter.sortedNames(of: members).reversed() {
                    if let member = members[name] {
                        pending.append((member, level + 1, ValuePath.appending(path, member: name)))
                    }
                }
            case .null, .bool, .number, .string: break
            }
        }
        return nil
    }

    /// The value's compact JSON size in bytes when it is over `limit`, else `nil`. The value is
    /// written only when `sizeBound` (from `survey`) is over the limit.
    func jsonSize(over limit: Int, sizeBound: Int) -> Int? {
        guard sizeBound > limit else { return nil }
        let size = jsonBytes(prettyPrinted: false).count
        return size > limit ? size : nil
    }

    /// At most six bytes per UTF-8 byte (`\u00XX`) and the quotes.
    private static func stringSizeBound(_ text: String) -> Int {
        2 + 6 * text.utf8.count
    }
}
