/// A diagnostic as the plugin reports it to the compiler. Positions are UTF-8 offsets into the file
/// named by `fileName`, which must be the file name the compiler sent.
package struct PluginDiagnostic: Codable, Equatable, Sendable {
    package enum Severity: String, Codable, Equatable, Sendable {
        case error, warning, note, remark
    }

    /// A point in a file.
    package struct Position: Codable, Equatable, Sendable {
        package var fileName: String
        /// 0-based UTF-8 offset in the file.
        package var offset: Int

        package init(fileName: String, offset: Int) {
            self.fileName = fileName
            self.offset = offset
        }

        /// A position that names no file; the compiler reports such a diagnostic without a location.
        package static let unknown = Position(fileName: "", offset: 0)
    }

    /// A half-open range `startOffset..<endOffset` of UTF-8 offsets in a file.
    package struct PositionRange: Codable, Equatable, Sendable {
        package var fileName: String
        package var startOffset: Int
        package var endOffset: Int

        package init(fileName: String, startOffset: Int, endOffset: Int) {
            self.fileName = fileName
            self.startOffset = startOffset
            self.endOffset = endOffset
        }
    }

    /// A note attached to the diagnostic.
    package struct Note: Codable, Equatable, Sendable {
        package var position: Position
        package var message: String

        package init(position: Position, message: String) {
            self.position = position
            self.message = message
        }
    }

    /// A suggested edit; the compiler offers it to the user (Xcode's "Fix" button).
    package struct FixIt: Codable, Equatable, Sendable {
        /// One replacement of a range by new text (an empty range inserts).
        package struct Change: Codable, Equatable, Sendable {
            package var range: PositionRange
            package var newText: String

            package init(range: PositionRange, newText: String) {
                self.range = range
                self.newText = newText
            }
        }

        package var message: String
        package var changes: [Change]

        package init(message: String, changes: [Change]) {
            self.message = message
            self.changes = changes
        }
    }

    package var message: String
    package var severity: Severity
    package var position: Position
    package var highlights: [PositionRange]
    package var notes: [Note]
    package var fixIts: [FixIt]

    package init(
        message: String, severity: Severity, position: Position,
        highlights: [PositionRange] = [], notes: [Note] = [], fixIts: [FixIt] = []
    ) {
        self.message = message
        self.severity = severity
        self.position = position
        self.highlights = highlights
        self.notes = notes
        self.fixIts = fixIts
    }
}
