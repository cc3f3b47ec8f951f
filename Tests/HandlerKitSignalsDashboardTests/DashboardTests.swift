#if SignalsDashboard
import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsInspection
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the built `handlerkit-dashboard` on an SQLite store with known content and drives it with
/// headless Chromium: what the pages show, a requeue confirmed in the browser, cross-site requests
/// refused, and reads that leave the store's file as it was. Each page's screenshot is written to
/// `.build/dashboard-screenshots/`.
///
/// Without Chromium the tests that need it are skipped and say how to install it; with `CI` set they
/// fail instead.
@Suite("Signals: the handlerkit-dashboard web dashboard", .serialized)
struct DashboardTests {
    static let needsChromium = Testing.ConditionTrait.disabled(
        if: !HeadlessChromium.isExpected, Comment(rawValue: HeadlessChromium.howToRun))

    let folder = TemporaryFolder()
    var path: String { folder.path + "/signals.sqlite" }
    let token = "test-token-\(UInt32.random(in: 0...UInt32.max))"

    /// Where the screenshots go: `.build/dashboard-screenshots/` of the package.
    static let screenshots: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = root.appending(path: ".build/dashboard-screenshots").path(percentEncoded: false)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// The store with known content (`makeOperatorsStore(at:note:)`), its pending payload's note holding markup.
    func makeStore() async throws -> (dead: ConsumerID, receiving: ConsumerID) {
        try await makeOperatorsStore(at: path, note: "<script>alert('x')</script> & <b>")
    }

    /// The database file's bytes and modification time.
    func fileState() throws -> (Data, Date?) {
        (
            try Data(contentsOf: URL(fileURLWithPath: path)),
            try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        )
    }

    func deliveryState(_ key: String) async throws -> DeliveryFilter.State? {
        let inspector = SignalStoreInspector(store: try SQLiteSignalStore(inspecting: path))
        return try await inspector.delivery(DeliveryKey(key))?.filterState
    }

    /// Writes the page's screenshot as `name`.png and says where.
    func screenshot(_ browser: HeadlessChromium, _ name: String) throws {
        let file = Self.screenshots + "/\(name).png"
        try browser.screenshot(to: file)
        print("dashboard screenshot: \(file)")
    }

    static func encoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    @Test(needsChromium) func pagesShowTheStoreAndARequeueIsConfirmedInTheBrowser() async throws {
        let (dead, receiving) = try await makeStore()
        let before = try fileState()
        let server = try await DashboardServer.start(store: path, ["--token", token], folder: folder.path)
        let browser: HeadlessChromium
        do {
            browser = try HeadlessChromium(folder: folder.path)
        } catch {
            await server.stop()
            throw error
        }
        defer { browser.quit() }
        do {
            try await drive(browser, server.base, dead: dead, receiving: receiving, before: before)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func drive(
        _ browser: HeadlessChromium, _ base: String, dead: ConsumerID, receiving: ConsumerID, before: (Data, Date?)
    ) async throws {
        // The overview's counts are the store's content.
        try browser.open(base + "/")
        try screenshot(browser, "1-overview")
        for (state, count) in [("pending", "1"), ("retrying", "0"), ("claimed", "0"), ("dead", "2")] {
            #expect(try browser.text("[data-count=\"app/\(state)\"]") == count, "\(state)")
        }
        #expect(try browser.text("#dead-letters") == "2")
        #expect(try browser.text("#waiting") == "1")
        #expect(try browser.text("#consumers") == "2")
        #expect(try browser.text("#kept-signals") == "1")
        #expect(try browser.text("#completions") == "1")
        #expect(try browser.text("#runs")?.contains("No run is recorded") == true)
        // Posts: bad r1 and r2 (dead deliveries), s r2 (its record), early r1 (kept), and s r1, known
        // from its completion (its record now holds r2).
        #expect(try browser.text("#posts-total") == "5")
        #expect(try browser.text("#completions-total") == "1")
        // The bars' tooltips add up to the same (all in the last minute or two).
        let bars = try #require(
            try browser.evaluate("[...document.querySelectorAll('svg rect title')].map(t => t.textContent)")
                as? [String])
        func total(_ kind: String) -> Int {
            bars.compactMap { bar in
                bar.firstMatch(of: /UTC: (\d+) (\w+)/).flatMap { $0.2.hasPrefix(kind) ? Int($0.1) : nil }
            }.reduce(0, +)
        }
        #expect(total("post") == 5 && total("completion") == 1, "\(bars)")

        try browser.open(base + "/deliveries")
        try screenshot(browser, "2-deliveries")
        #expect(try browser.evaluate("document.querySelectorAll('#deliveries tr').length") as? Int == 4)
        try browser.open(base + "/deliveries?limit=1")
        #expect(try browser.text("#truncated")?.contains("Showing the oldest 1") == true)
        try browser.open(base + "/dead")
        try screenshot(browser, "3-dead-letters")
        #expect(try browser.evaluate("document.querySelectorAll('#deliveries tr').length") as? Int == 3)
        try browser.open(base + "/consumers")
        try screenshot(browser, "4-consumers")
        #expect(try browser.text("#shown") == "2 consumers.")

        // Stored text is shown as text: the payload's markup is not markup, and its integer keeps
        // every digit.
        try browser.open(base + "/delivery?key=" + Self.encoded("\(receiving.rawValue)/2"))
        try screenshot(browser, "5-delivery")
        let payload = try #require(try browser.text("#payload"))
        #expect(payload.contains("<script>alert('x')</script> & <b>"), "\(payload)")
        #expect(payload.contains("9223372036854775807"), "\(payload)")
        #expect(
            try browser.evaluate("document.scripts.length + document.querySelectorAll('main b').length") as? Int == 0)

        // Bad input is a page saying what was wrong.
        try browser.open(base + "/deliveries?limit=many")
        try screenshot(browser, "6-bad-request")
        #expect(try browser.text("#problem")?.contains("limit 'many' is not a whole number") == true)
        try browser.open(base + "/deliveries?state=lost")
        #expect(try browser.text("#problem")?.contains("state 'lost' is not one of") == true)
        try browser.open(base + "/delivery?key=" + Self.encoded("\(dead.rawValue)/404"))
        #expect(try browser.text("#problem")?.contains("There is no delivery") == true)

        // Requeue one dead delivery: open it, follow "Requeue…", type the token, confirm.
        let key = "\(dead.rawValue)/1"
        try browser.open(base + "/delivery?key=" + Self.encoded(key))
        #expect(try browser.text("#state") == "dead")
        try browser.leave(by: "document.querySelector('a[href^=\"/requeue\"]').click()")
        try screenshot(browser, "7-confirm-requeue")
        #expect(try browser.text("h1") == "Requeue delivery \(key)?")
        #expect(try await deliveryState(key) == .dead, "showing the confirmation changed nothing")

        // (Every page so far only read: the database file is as it was.)
        let after = try fileState()
        #expect(after.0 == before.0, "reading changed the database file")
        #expect(after.1 == before.1, "reading touched the database file")

        try browser.evaluate("document.getElementById('token').value = \(HeadlessChromium.quoted(token))")
        try browser.leave(by: "document.getElementById('confirm').click()")
        try screenshot(browser, "8-requeued")
        #expect(try browser.text("#result") == "Requeued 1 delivery: pending, due now.")
        #expect(try browser.text("#state") == "pending")
        #expect(try browser.text("#attempts") == "0")
        #expect(try await deliveryState(key) == .pending)
        #expect(try await deliveryState("\(dead.rawValue)/2") == .dead, "only the confirmed delivery")

        // Requeue every dead delivery the dead letters list shows (one is left), then discard the
        // pending delivery of signal s.
        try browser.open(base + "/dead?handler=Sink.fail")
        try browser.leave(by: "document.querySelector('a[href^=\"/requeue\"]').click()")
        try screenshot(browser, "10-confirm-requeue-matching")
        #expect(try browser.text("#to-change") == "1")
        try browser.evaluate("document.getElementById('token').value = \(HeadlessChromium.quoted(token))")
        try browser.leave(by: "document.getElementById('confirm').click()")
        #expect(try browser.text("#result") == "Requeued 1 delivery: pending, due now.")
        #expect(try browser.text("#keys") == "\(dead.rawValue)/2")
        #expect(try await deliveryState("\(dead.rawValue)/2") == .pending)

        let pending = "\(receiving.rawValue)/2"
        try browser.open(base + "/delivery?key=" + Self.encoded(pending))
        try browser.leave(by: "document.querySelector('a[href^=\"/discard\"]').click()")
        try browser.evaluate("document.getElementById('token').value = \(HeadlessChromium.quoted(token))")
        try browser.leave(by: "document.getElementById('confirm').click()")
        try screenshot(browser, "11-discarded")
        #expect(try browser.text("#result")?.hasPrefix("Discarded delivery \(pending) (it was pending)") == true)
        #expect(try await deliveryState(pending) == nil)
    }

    @Test(needsChromium) func crossSiteAndUnconfirmedRequestsChangeNothing() async throws {
        let (dead, _) = try await makeStore()
        let key = "\(dead.rawValue)/2"
        let server = try await DashboardServer.start(store: path, ["--token", token], folder: folder.path)
        do {
            try await refuse(server.base, key: key)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func refuse(_ base: String, key: String) async throws {
        let before = try fileState()
        // A page of another site posts a form to the dashboard (the browser sends Origin: null and
        // Sec-Fetch-Site: cross-site, and the form cannot carry the form token).
        let browser = try HeadlessChromium(folder: folder.path)
        defer { browser.quit() }
        let attack = """
            <form method="post" action="\(base)/requeue"><input name="form-token" value="guess">\
            <input name="token" value="\(token)"><input name="key" value="\(key)"></form>
            """
        try browser.open("data:text/html," + Self.encoded(attack))
        try browser.leave(by: "document.forms[0].submit()")
        try screenshot(browser, "9-cross-site-refused")
        #expect(try browser.text("h1") == "Refused: cross-site request")

        // The same with the real form token, from a script that is not a browser.
        let confirmation = try await request(base + "/requeue?key=" + Self.encoded(key))
        #expect(confirmation.status == 200)
        let formToken = try #require(
            confirmation.text.firstMatch(of: /name="form-token" value="([0-9a-f]{64})"/).map { String($0.1) })
        let form = "form-token=\(formToken)&token=\(token)&key=\(Self.encoded(key))"
        let foreign = try await request(base + "/requeue", form: form, headers: ["Origin": "http://evil.example"])
        #expect(
            foreign.status == 403 && foreign.text.contains("comes from &#39;http://evil.example&#39;"),
            "\(foreign.text)")
        let crossSite = try await request(base + "/requeue", form: form, headers: ["Sec-Fetch-Site": "cross-site"])
        #expect(crossSite.status == 403 && crossSite.text.contains("Sec-Fetch-Site: cross-site"))
        let noFormToken = try await request(base + "/requeue", form: "token=\(token)&key=\(Self.encoded(key))")
        #expect(noFormToken.status == 403 && noFormToken.text.contains("form token is missing"))
        let wrongToken = try await request(
            base + "/requeue", form: "form-token=\(formToken)&token=not-the-token&key=\(Self.encoded(key))")
        #expect(wrongToken.status == 403 && wrongToken.text.contains("Wrong token"))
        let get = try await request(base + "/requeue?key=" + Self.encoded(key), method: "PUT")
        #expect(get.status == 405)
        let badForm = try await request(base + "/requeue", form: form + "&key=\(Self.encoded(key))")
        #expect(badForm.status == 400 && badForm.text.contains("given more than once"), "\(badForm.text)")
        let rebinding = try await request(base + "/", headers: ["Host": "attacker.example"])
        #expect(rebinding.status == 400 && rebinding.text.contains("not a loopback host"), "\(rebinding.text)")
        #expect(try await deliveryState(key) == .dead)
        let after = try fileState()
        #expect(after.0 == before.0 && after.1 == before.1, "nothing was written")

        // The same request from the dashboard's own page, with both tokens, is done.
        let same = try await request(base + "/requeue", form: form, headers: ["Origin": base])
        #expect(same.status == 200 && same.text.contains("Requeued 1 delivery"), "\(same.text)")
        #expect(try await deliveryState(key) == .pending)
    }

    @Test func withoutATokenActionsAreDisabled() async throws {
        let (dead, _) = try await makeStore()
        let key = "\(dead.rawValue)/1"
        let server = try await DashboardServer.start(store: path, folder: folder.path)
        let confirmation = try await request(server.base + "/requeue?key=" + Self.encoded(key))
        let posted = try await request(server.base + "/requeue", form: "key=\(Self.encoded(key))&token=whatever1")
        await server.stop()
        #expect(
            confirmation.text.contains("Actions are disabled") && !confirmation.text.contains("<form method=\"post\""))
        #expect(posted.status == 403)
        #expect(try await deliveryState(key) == .dead)
    }

    @Test func pagesShowWhatOtherProcessesChanged() async throws {
        _ = try await makeStore()
        let server = try await DashboardServer.start(store: path, folder: folder.path)
        let before = try await request(server.base + "/")
        // Another process (this one) requeues every dead delivery while the dashboard runs.
        let writer = SignalStoreInspector(store: try SQLiteSignalStore(path: path))
        let requeued = try await writer.requeue(matching: DeliveryFilter())
        let after = try await request(server.base + "/")
        await server.stop()
        #expect(requeued.count == 2)
        #expect(before.text.contains("data-count=\"app/dead\"><a"), "two dead before")
        #expect(after.text.contains("data-count=\"app/dead\">0<"), "none after: \(after.text)")
    }

    @Test func theOverviewShowsTheOrderingKeysThatAreBlocked() async throws {
        let sending = try await makeBlockedKeyStore(at: path)
        let server = try await DashboardServer.start(store: path, folder: folder.path)
        let overview = try await request(server.base + "/")
        let head = try await request(server.base + "/delivery?key=" + Self.encoded("\(sending.rawValue)/1"))
        let keyed = try await request(
            server.base + "/deliveries?consumer=\(sending.rawValue)&ordering-key=conversation-1")
        await server.stop()
        #expect(overview.text.contains("<b id=\"blocked-keys\"><a href=\"#blocked\">2</a></b>"), "\(overview.text)")
        let table = try #require(
            overview.text.range(of: "<table id=\"blocked\">").map { overview.text[$0.lowerBound...] })
        #expect(table.contains("<td class=\"mono\">conversation-1</td><td>chat</td>"), "\(table)")
        #expect(table.contains("ordering-key=conversation-1\">2</a>"), "two wait behind conversation-1: \(table)")
        #expect(head.text.contains("<span id=\"ordering-key\">"), "\(head.text)")
        #expect(head.text.contains(">conversation-1</a>"), "\(head.text)")
        #expect(keyed.status == 200)
        #expect(
            keyed.text.components(separatedBy: "/delivery?key=").count - 1 == 3,
            "three deliveries of the key: \(keyed.text)")
    }

    /// The status and text of a request made without a browser (a POST of `form` when given).
    func request(
        _ url: String, form: String? = nil, method: String? = nil, headers: [String: String] = [:]
    )
        async throws -> (status: Int, text: String)
    {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method ?? (form == nil ? "GET" : "POST")
        if let form {
            request.httpBody = Data(form.utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}
#endif
