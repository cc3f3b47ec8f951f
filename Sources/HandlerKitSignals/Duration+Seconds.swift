extension Duration {
    /// The duration in seconds (for the stores, which keep times as seconds since 1970).
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
