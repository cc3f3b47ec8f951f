import Foundation

/// An age an operator gives, such as "made longer ago than 15m": a number and a unit, `s`, `m`, `h`
/// or `d` (`90s`, `15m`, `2h`, `1.5d`).
package struct Age: Sendable, Hashable {
    /// The age in seconds.
    package var seconds: Double

    /// The age `text` gives; `nil` when it is not a non-negative, finite number followed by a unit.
    package init?(_ text: some StringProtocol) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let number = Double(String(text.dropLast())),
            number.isFinite, number >= 0
        else { return nil }
        seconds = number * unit
    }

    /// How long ago `date` was, as the tools show it: `42s ago`, `5m ago`, `3h ago`, `2d ago` (or
    /// `in 5m` for a date to come).
    package static func text(since date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        let amount = abs(seconds)
        let text =
            amount < 60
            ? "\(Int(amount))s"
            : amount < 3_600
                ? "\(Int(amount / 60))m" : amount < 172_800 ? "\(Int(amount / 3_600))h" : "\(Int(amount / 86_400))d"
        return seconds >= 0 ? "\(text) ago" : "in \(text)"
    }
}
