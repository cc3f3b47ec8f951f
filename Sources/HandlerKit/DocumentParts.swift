/// The members of a handler document, before they are checked: what the top-level parse found, or
/// what a nested handler's object holds.
struct DocumentParts {
    var version: HandlerValue?
    var id: HandlerValue?
    var invalidation: HandlerValue?
    /// `bound` when it is an object.
    var bound: BoundMembers?
    /// `bound` when it is anything else (an error).
    var boundOther: HandlerValue?
    /// The first member that a handler document does not have.
    var unknownMember: String?

    /// A top-level member name.
    enum Member: Hashable {
        case version, id, invalidation, bound
        case unknown(String)

        static let known: [Member] = [.version, .id, .invalidation, .bound]

        /// A distinct bit for each known member (to detect duplicates), `nil` for unknown ones.
        var bit: UInt8? {
            switch self {
            case .version: 1
            case .id: 2
            case .invalidation: 4
            case .bound: 8
            case .unknown: nil
            }
        }

        init(name: String) {
            self = Self.known.first { $0.name == name } ?? .unknown(name)
        }

        var name: String {
            switch self {
            case .version: "version"
            case .id: "id"
            case .invalidation: "invalidation"
            case .bound: "bound"
            case .unknown(let name): name
            }
        }
    }

    init() {}

    /// The parts of a nested handler's document object.
    init(members: [String: HandlerValue]) {
        for (name, value) in members {
            switch Member(name: name) {
            case .version: version = value
            case .id: id = value
            case .invalidation: invalidation = value
            case .bound:
                if case .object(let values) = value { bound = BoundMembers(values) } else { boundOther = value }
            case .unknown(let name):
                if unknownMember.map({ name < $0 }) ?? true { unknownMember = name }
            }
        }
    }
}

/// The members of a document's `bound` object as parsed: unique names, numbers already parsed.
struct BoundMembers {
    var names: [String] = []
    var values: [BoundValue] = []

    init() {}

    init(_ dictionary: [String: HandlerValue]) {
        names.reserveCapacity(dictionary.count)
        values.reserveCapacity(dictionary.count)
        for (name, value) in dictionary {
            names.append(name)
            values.append(BoundValue(value))
        }
    }
}
