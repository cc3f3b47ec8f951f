/// The members of a handler document, before they are checked: what the top-level parse found, or
/// what a nested handler's object holds.
struct DocumentParts {
    var version: HandlerValue?
    var id: HandlerValue?
    var invalidation: HandlerValue?
    /// The handler `id` names, when the parse already found it registered.
    var target: HandlerDescriptor?
    /// The handler `invalidation` names, when the parse already found it registered.
    var invalidationTarget: HandlerDescriptor?
    /// `bound` when it is an object.
    var bound: [BoundEntry]?
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
                if case .object(let values) = value { bound = BoundEntry.entries(values) } else { boundOther = value }
            case .unknown(let name):
                if unknownMember.map({ name < $0 }) ?? true { unknownMember = name }
            }
        }
    }
}
