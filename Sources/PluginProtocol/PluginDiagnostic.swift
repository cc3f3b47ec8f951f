/// A diagnostic as the plugin reports it to the compiler. Positions are UTF-8 offsets into the file
/// named by `fileName`, which must be the file name the compiler sent.
public struct PluginDiagnostic: Codable, Equatable, Sendable {
    public enum Severity: String, Codable, Equatable, Sendable {
        case error, warning, note, remark
    }

    /// A point in a file.
    public struct Position: Codable, Equatable, Sendable {
        public var fileName: String
        /// 0-based UTF-8 offset in the file.
        public var offset: Int

        public init(fileName: String, offset: Int) {
            self.fileName = fileName
            self.offset = offset
        }

        /// A position that names no file; the compiler reports such a diagnostic without a location.
        public static let unknown = Position(fileName: "", offset: 0)
    }

    /// A half-open range `startOffset..<endOffset` of UTF-8 offsets in a file.
    public struct PositionRange: Codable, Equatable, Sendable {
        public var fileName: String
        public var startOffset: Int
        public var endOffset: Int

        public init(fileName: String, startOffset: Int, endOffset: Int) {
            self.fileName = fileName
            self.startOffset = startOffset
            self.endOffset = endOffset
        }
    }

    /// A note attached to the diagnostic.
    public struct Note: Codable, Equatable, Sendable {
        public var position: Position
        public var message: String

        public init(position: Position, message: String) {
            self.position = position
            self.message = message
        }
    }

    /// A suggested edit; the compiler offers it to the user (Xcode's "Fix" button).
    public struct FixIt: Codable, Equatable, Sendable {
        /// One replacement of a range by new text (an empty range inserts).
        public struct Change: Codable, Equatable, Sendable {
            public var range: PositionRange
            public var newText: String

            public init(range: PositionRange, newText: String) {
                self.range = range
                self.newText = newText
            }
        }

        public var message: String
        public var changes: [Change]

        public init(message: String, changes: [Change]) {
            self.message = message
            self.changes = changes
        }
    }

    public var message: String
    public var severity: Severity
    public var position: Position
    public var highlights: [PositionRange]
    public var notes: [Note]
    public var fixIts: [FixIt]

    public init(
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
