/// A check of the module's handlers against the committed baseline: each names a
/// change that can stop stored handlers (documents, subscriptions, consumers) from rebuilding or running.
///
/// How each is reported is set in one place, the `rules` object of the baseline file; a rule it does
/// not name gets its `defaultSeverity`.
package enum EvolutionRule: String, CaseIterable, Sendable, Comparable {
    /// A handler id of the baseline is neither an id nor a former id any more.
    case handlerRemoved
    /// A parameter of the baseline is gone while the handler has a new one, with no former name.
    case parameterRenamed
    /// A new mandatory parameter without a default, or a parameter that became mandatory.
    case mandatoryParameterAdded
    /// A parameter's type changed; stored values may not decode.
    case typeChanged
    /// A parameter's type changed so that stored JSON certainly does not decode (`Int` → `String`).
    case typeShapeChanged
    /// A parameter whose type could be bound (Codable) now has a type that cannot be.
    case bindableLost

    /// `warning` for `typeChanged` (stored values may still decode), `error` for the others.
    package var defaultSeverity: EvolutionSeverity {
        self == .typeChanged ? .warning : .error
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How a rule's findings are reported.
package enum EvolutionSeverity: String, CaseIterable, Sendable {
    /// A compiler error: the build fails.
    case error
    /// A compiler warning.
    case warning
    /// Not reported.
    case ignore
}
