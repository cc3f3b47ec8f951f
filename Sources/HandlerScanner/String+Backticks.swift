extension String {
    /// The text with every backtick removed (`` `Type`.name `` → `Type.name`).
    func replacingBackticks() -> String {
        String(unicodeScalars.filter { $0 != "`" })
    }
}
