/// The messages about former ids and former parameter names.
extension Diagnostics {
    static let renamedNotALiteral =
        "'renamed:' must be a dictionary literal of plain strings mapping each former parameter name to the "
        + "current one, e.g. @handler(renamed: [\"acct\": \"account\"])"

    static func formerIDIsCurrent(_ id: String) -> String {
        "'\(id)' is the handler's current id, not a former one; remove it from 'formerly:'"
    }

    static func repeatedFormerID(_ id: String) -> String {
        "former id '\(id)' is given more than once in 'formerly:'; keep only one"
    }

    static func repeatedFormerName(_ name: String) -> String {
        "former parameter name '\(name)' is given more than once in 'renamed:'; a former name maps to one "
            + "parameter: keep only one"
    }

    static func formerNameIsCurrent(_ name: String, _ function: String, _ reversed: Bool) -> String {
        if reversed {
            return "'renamed:' maps former names to current ones, and '\(name)' is a current parameter of "
                + "'\(function)': write the pair the other way round, [\"former\": \"current\"]"
        }
        return "'\(name)' is a current parameter of '\(function)', so it cannot be a former name too; "
            + "remove it from 'renamed:'"
    }

    static func renamedToUnknown(_ former: String, _ current: String, _ function: String) -> String {
        "'renamed:' maps '\(former)' to '\(current)', which is not a parameter of '\(function)'; write "
            + "[\"former\": \"current\"] with the parameter's current internal name"
    }

    static func formerIDCollision(_ former: String, isFormerThere: Bool, otherFile: String, otherLine: Int) -> String {
        let there = isFormerThere ? "also a former id of the handler" : "the id of the handler"
        return "former id '\(former)' is \(there) at \(otherFile):\(otherLine); a stored document naming it "
            + "must rebuild to exactly one handler: remove it from one of them"
    }

    static func idIsFormerElsewhere(_ id: String, otherFile: String, otherLine: Int) -> String {
        "handler id '\(id)' is a former id of the handler at \(otherFile):\(otherLine); a stored document "
            + "naming it must rebuild to exactly one handler: remove it from that handler's 'formerly:' or "
            + "give this one another id"
    }
}
