import Foundation

/// `handlerkit-demo`: handlers created in one process, stored as JSON, and rebuilt and called in a
/// second process.
///
///     handlerkit-demo [--file PATH]        first process: create handlers, write PATH, start the second
///     handlerkit-demo --replay PATH        second process: rebuild the handlers from PATH and use them
///     handlerkit-demo --signals-register|--signals-perform|--signals-resume STORE   the signals step's processes
///     handlerkit-demo --signals-suspend STORE   the suspension step's app process
///     handlerkit-demo --promise-await|--promise-settle STORE   the promise step's processes
///
/// The exit status is 0 when every step did what it should, 1 otherwise.
@main
enum DemoMain {
    /// The flag that makes this executable the second process.
    static let replayFlag = "--replay"

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            if let (step, store) = SignalsStep.child(arguments) {
                try await SignalsStep.run(step, store: store)
            } else if let store = SuspendStep.child(arguments) {
                try await SuspendStep.runChild(store: store)
            } else if let (flag, store) = PromiseStep.child(arguments) {
                try await PromiseStep.run(flag, store: store)
            } else if let index = arguments.firstIndex(of: replayFlag) {
                guard index + 1 < arguments.count else {
                    throw DemoFailure("\(replayFlag) needs the path of a handler file")
                }
                try await SecondProcess.run(file: arguments[index + 1])
            } else {
                try await FirstProcess.run(file: try handlerFile(arguments))
            }
        } catch {
            Say.error("\(error)")
            exit(1)
        }
    }

    /// The file given with `--file`, or one in the temporary folder.
    static func handlerFile(_ arguments: [String]) throws -> URL {
        guard let index = arguments.firstIndex(of: "--file") else {
            if let unknown = arguments.first {
                throw DemoFailure("unknown argument \(unknown); usage: handlerkit-demo [--file PATH]")
            }
            return FileManager.default.temporaryDirectory.appending(path: "handlerkit-demo-handlers.jsonl")
        }
        guard index + 1 < arguments.count else { throw DemoFailure("--file needs a path") }
        return URL(fileURLWithPath: arguments[index + 1])
    }
}

/// A step that did not do what it should.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
