/// What one store showed after a step of a differential sequence, field by field, in logical names
/// (times, row ids and the ids a store made are left out or named by the sequence).
struct DifferentialObservation: Hashable, Sendable {
    struct Field: Hashable, Sendable {
        var name: String
        var lines: [String]
    }

    private(set) var fields: [Field] = []

    mutating func add(_ name: String, _ lines: [String]) {
        fields.append(Field(name: name, lines: lines))
    }

    /// The fields of `self` and `other` that differ, by name.
    func differences(from other: DifferentialObservation) -> [String] {
        zip(fields, other.fields).filter { $0 != $1 }.map(\.0.name)
    }

    func lines(of name: String) -> [String] {
        fields.first { $0.name == name }?.lines ?? []
    }
}

/// The first step at which the stores showed different things.
struct DifferentialDivergence: Sendable {
    /// The index of the step in its sequence.
    var step: Int
    var operation: DifferentialOperation
    /// Each store's name and what it showed after the step.
    var observations: [(store: String, observation: DifferentialObservation)]

    /// The fields in which some store differs from the first.
    var fields: [String] {
        guard let reference = observations.first?.observation else { return [] }
        var names: [String] = []
        for other in observations.dropFirst() {
            for name in other.observation.differences(from: reference) where !names.contains(name) {
                names.append(name)
            }
        }
        return names
    }

    /// Every differing field, as each store showed it.
    var report: String {
        var text = ""
        for field in fields {
            text += "  \(field):\n"
            for (store, observation) in observations {
                let lines = observation.lines(of: field)
                text += "    \(store):\(lines.isEmpty ? " (none)" : "")\n"
                for line in lines { text += "      \(line)\n" }
            }
        }
        return text
    }
}
