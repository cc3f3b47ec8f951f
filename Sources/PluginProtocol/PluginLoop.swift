#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The plugin's main loop: read a framed request, answer it, until the compiler closes the pipe.
package enum PluginLoop {
    /// Why the loop ended.
    package enum Ending: Equatable, Sendable {
        /// The input ended between messages, or a zero-length frame was read: the normal end.
        case endOfInput
        /// The byte stream broke (truncated or oversized frame); it cannot be resynchronized.
        case malformedInput(String)
        /// Reading the input failed.
        case inputFailed(String)
        /// The response could not be written; the compiler is gone.
        case outputFailed(String)

        /// The process exit status for this ending: 0 for the normal end and for a vanished reader,
        /// 1 for a broken input stream.
        package var exitStatus: Int32 {
            switch self {
            case .endOfInput, .outputFailed: return 0
            case .malformedInput, .inputFailed: return 1
            }
        }

        /// A message for standard error, or `nil` for the normal end.
        package var explanation: String? {
            switch self {
            case .endOfInput: return nil
            case .malformedInput(let detail): return "malformed input from the compiler: \(detail)"
            case .inputFailed(let detail): return "cannot read from the compiler: \(detail)"
            case .outputFailed(let detail): return "cannot write to the compiler: \(detail)"
            }
        }
    }

    /// Serves requests from `input` until it ends or breaks. Never traps on any input.
    package static func run<Input: ByteReading, Output: ByteWriting>(
        session: inout PluginSession, input: inout Input, output: inout Output
    ) -> Ending {
        while true {
            let payload: [UInt8]
            do {
                guard let next = try MessageFraming.readMessage(from: &input) else { return .endOfInput }
                payload = next
            } catch let error as FramingError {
                return .malformedInput(error.description)
            } catch {
                return .inputFailed("\(error)")
            }
            let response = session.response(toPayload: payload)
            do {
                try MessageFraming.writeMessage(try PluginSession.encode(response), to: &output)
            } catch {
                return .outputFailed("\(error)")
            }
        }
    }

    /// Runs the plugin on the process's standard input and output, as the compiler launches it,
    /// and returns the exit status. Standard output is kept for messages only: anything else that
    /// writes to it goes to standard error. A closed output pipe ends the loop instead of killing
    /// the process with `SIGPIPE`.
    package static func runOnStandardStreams() -> Int32 {
        _ = signal(SIGPIPE, SIG_IGN)
        var outputDescriptor = dup(STDOUT_FILENO)
        if outputDescriptor >= 0 {
            _ = dup2(STDERR_FILENO, STDOUT_FILENO)
        } else {
            outputDescriptor = STDOUT_FILENO
        }
        var session = PluginSession()
        var input = FileDescriptorReader(descriptor: STDIN_FILENO)
        var output = FileDescriptorWriter(descriptor: outputDescriptor)
        let ending = run(session: &session, input: &input, output: &output)
        if let explanation = ending.explanation {
            var standardError = FileDescriptorWriter(descriptor: STDERR_FILENO)
            try? standardError.write(Array("HandlerKitMacros: \(explanation)\n".utf8))
        }
        return ending.exitStatus
    }
}
