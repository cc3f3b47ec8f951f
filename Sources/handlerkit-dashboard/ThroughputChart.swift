#if SignalsDashboard
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection

/// Posts and completions per minute over the last hour, as the store's records tell them, drawn as
/// an SVG bar chart.
///
/// - A completion is an entry of the history of completions, counted in the minute of its
///   `completedAt`. Centers forget entries older than the store's history setting, and an operator
///   may purge them.
/// - A post is a signal revision the store still knows of, counted once however many consumers it
///   reached: the latest revision of each signal record, at its `postedAt`; a revision with a
///   delivery still stored (pending, waiting for retry, claimed or dead), at the time its earliest
///   stored delivery was made; and a revision known only from the history of completions (its
///   deliveries all completed, and its signal's record is gone or holds a later revision: a one-shot
///   signal of a request and its response leaves nothing else), at its earliest completion, since
///   the store keeps no other time for it. A revision posted to no consumer and not kept, or whose
///   completions were forgotten or purged, is not counted.
struct ThroughputChart: Sendable {
    /// How many minutes the chart shows, the current one last.
    static let minutes = 60

    /// The start of the first minute shown.
    var start: Date
    /// Posts and completions in each minute, oldest first.
    var posts: [Int]
    var completions: [Int]

    /// The definition of the two series, as the page states it.
    static let definition = """
        Completions: entries of the store's history of completions, by the minute they were recorded. \
        Posts: signal revisions the store still knows of, each counted once however many consumers it reached: \
        the latest revision of each signal (at its post time), every revision with a delivery still stored \
        (pending, waiting for retry, claimed or dead: when its first such delivery was made), and every \
        revision known only from the history of completions (at its first completion, the only time kept for \
        it; a one-shot signal of a request and its response leaves nothing else). A revision posted to no \
        consumer and not kept, or whose completions were forgotten or purged, is not counted.
        """

    init(now: Date, deliveries: [DeliveryRecord], signals: [SignalRecord], completions: [CompletionEntry]) {
        let end = (now.timeIntervalSince1970 / 60).rounded(.down) * 60 + 60
        let start = end - Double(Self.minutes * 60)
        self.start = Date(timeIntervalSince1970: start)
        func minute(_ date: Date) -> Int? {
            let index = Int(((date.timeIntervalSince1970 - start) / 60).rounded(.down))
            return (0..<Self.minutes).contains(index) ? index : nil
        }
        struct Revision: Hashable {
            var signal: String
            var revision: Int
        }
        // The earliest time the store holds for each revision: its stored deliveries were made when it
        // was posted, and a completion comes after its post.
        var postedAt: [Revision: Date] = [:]
        func note(_ revision: Revision, _ date: Date) {
            postedAt[revision] = min(postedAt[revision] ?? date, date)
        }
        for delivery in deliveries {
            note(Revision(signal: delivery.signalID, revision: delivery.revision), delivery.madeAt)
        }
        for completion in completions {
            note(Revision(signal: completion.signalID, revision: completion.revision), completion.completedAt)
        }
        for signal in signals {
            postedAt[Revision(signal: signal.signalID, revision: signal.revision)] = signal.postedAt
        }
        var posts = Array(repeating: 0, count: Self.minutes)
        for date in postedAt.values { if let index = minute(date) { posts[index] += 1 } }
        var completed = Array(repeating: 0, count: Self.minutes)
        for completion in completions { if let index = minute(completion.completedAt) { completed[index] += 1 } }
        self.posts = posts
        self.completions = completed
    }

    /// The time of day of `date` in UTC, to the minute (`18:05`).
    static func clock(_ date: Date) -> String {
        let minutes = Int((date.timeIntervalSince1970 / 60).rounded(.down))
        let hour = (minutes / 60) % 24
        let minute = minutes % 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// The chart: a pair of bars a minute (posts, then completions), the scale on the left, each
    /// bar's minute and count in its tooltip.
    var svg: String {
        let left = 44.0
        let top = 12.0
        let height = 140.0
        let step = 12.0
        let width = left + step * Double(Self.minutes) + 10
        let highest = max(1, (posts + completions).max() ?? 1)
        var bars = ""
        for index in 0..<Self.minutes {
            let minute = Self.clock(start.addingTimeInterval(Double(index * 60)))
            for (offset, count, kind, color) in [
                (1.0, posts[index], "post", "#457b9d"), (6.0, completions[index], "completion", "#2a9d8f"),
            ] where count > 0 {
                let barHeight = max(1, height * Double(count) / Double(highest))
                let x = left + step * Double(index) + offset
                bars +=
                    "<rect x=\"\(x)\" y=\"\(top + height - barHeight)\" width=\"5\" height=\"\(barHeight)\" "
                    + "fill=\"\(color)\"><title>\(minute) UTC: \(HTML.count(count, kind, kind + "s"))</title></rect>"
            }
        }
        var axis =
            "<line x1=\"\(left)\" y1=\"\(top + height)\" x2=\"\(width - 10)\" y2=\"\(top + height)\" stroke=\"#999\"/>"
            + "<line x1=\"\(left)\" y1=\"\(top)\" x2=\"\(width - 10)\" y2=\"\(top)\" stroke=\"#e3e6ea\"/>"
            + "<text x=\"\(left - 6)\" y=\"\(top + 4)\" text-anchor=\"end\">\(highest)</text>"
            + "<text x=\"\(left - 6)\" y=\"\(top + height + 4)\" text-anchor=\"end\">0</text>"
        for (index, label) in [(0, "−60 min"), (30, "−30 min"), (Self.minutes - 1, "now")] {
            let x = left + step * Double(index) + 6
            axis += "<text x=\"\(x)\" y=\"\(top + height + 16)\" text-anchor=\"middle\">\(label)</text>"
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(top + height + 24))" \
            role="img" aria-label="posts and completions per minute, last \(Self.minutes) minutes">\
            \(axis)\(bars)</svg>
            """
    }
}
#endif
