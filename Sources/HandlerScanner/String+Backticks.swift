extension String {
    /// The text with every backtick removed (`` `Type`.name `` → `Type.name`).
    func replacingBackticks() -> String {
        // Names rarely have backticks: those are returned as they are, without a copy.
        guard utf8.contains(UInt8(ascii: "`")) else { return self }
        return String(unicodeScalars.filter { $0 != "`" })
    }
}
