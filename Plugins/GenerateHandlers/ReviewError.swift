/// Why the command stopped.
enum ReviewError: Error, CustomStringConvertible {
    case usage(String)
    case toolFailed(targets: [String])

    var description: String {
        switch self {
        case .usage(let message): message
        case .toolFailed(let targets):
            "handlergen could not generate the handlers of \(targets.joined(separator: ", ")); see the errors above"
        }
    }
}
