/// Why the command stopped.
enum ReviewError: Error, CustomStringConvertible {
    case usage(String)
    case toolFailed(target: String, status: Int32)

    var description: String {
        switch self {
        case .usage(let message): message
        case .toolFailed(let target, let status):
            "handlergen could not generate \(target)'s handlers (exit status \(status)); see the errors above"
        }
    }
}
