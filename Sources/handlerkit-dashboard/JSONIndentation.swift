#if SignalsDashboard
import Foundation

/// A stored JSON document laid out for reading: one member or element a line, indented by two
/// spaces a level. The text of every string and number is kept as stored, so integers keep every
/// digit.
enum JSONIndentation {
    /// `bytes` indented when they are a JSON document; as they are (or a note saying they are not
    /// text) otherwise.
    static func indent(_ bytes: [UInt8]) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return "(\(bytes.count) bytes that are not UTF-8 text)"
        }
        guard (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil else {
            return text
        }
        let characters = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var depth = 0
        var index = 0
        var inString = false
        var escaped = false
        func newLine() {
            output.append("\n")
            output.append(contentsOf: String(repeating: "  ", count: depth).unicodeScalars)
        }
        func nextSignificant(after position: Int) -> Unicode.Scalar? {
            characters[(position + 1)...].first { !" \n\r\t".unicodeScalars.contains($0) }
        }
        while index < characters.count {
            let character = characters[index]
            index += 1
            if inString {
                output.append(character)
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
                continue
            }
            switch character {
            case "\"":
                inString = true
                output.append(character)
            case "{", "[":
                output.append(character)
                if let next = nextSignificant(after: index - 1), next == "}" || next == "]" {
                    output.append(next)
                    index = (characters[index...].firstIndex(of: next) ?? index) + 1
                } else {
                    depth += 1
                    newLine()
                }
            case "}", "]":
                depth -= 1
                newLine()
                output.append(character)
            case ",":
                output.append(character)
                newLine()
            case ":":
                output.append(contentsOf: ": ".unicodeScalars)
            case " ", "\n", "\r", "\t":
                break
            default:
                output.append(character)
            }
        }
        return String(output)
    }
}
#endif
