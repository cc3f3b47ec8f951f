#if SignalsDashboard
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection
import HTTPTypes
import Hummingbird
import SignalStoreOpening

/// The dashboard's pages and actions: reads through a store opened read-only, and opens the store
/// for changing only for an action that passed every check (``RequestGuard``).
struct Dashboard: Sendable {
    /// The store, as given at start (actions open it for changing from here).
    let location: StoreLocation
    /// The store opened read-only: every page reads through it.
    let reader: SignalStoreInspector
    let requestGuard: RequestGuard

    /// The largest form body read.
    static let maximumBody = 16_384

    /// The response to `request`: a page, or a page saying what was wrong. Never throws.
    func respond(to request: Request) async -> Response {
        let page: Page
        do {
            try requestGuard.checkHost(request)
            page = try await route(request)
        } catch let error as InputError {
            page = .problem(.badRequest, "Bad request", "Nothing changed: \(error.message).")
        } catch let refusal as Refusal {
            page = .problem(refusal.status, refusal.title, refusal.message)
        } catch let error as SignalError {
            page = .problem(.serviceUnavailable, "The store could not be read", "\(error)")
        } catch {
            page = .problem(.internalServerError, "Something went wrong", "\(error)")
        }
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .contentSecurityPolicy:
                "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; "
                + "frame-ancestors 'none'; base-uri 'none'",
            .cacheControl: "no-store",
            .xContentTypeOptions: "nosniff",
        ]
        if let frameOptions = HTTPField.Name("X-Frame-Options") { headers[frameOptions] = "DENY" }
        // Not no-referrer: with it, browsers send `Origin: null` with the dashboard's own forms.
        if let referrerPolicy = HTTPField.Name("Referrer-Policy") { headers[referrerPolicy] = "same-origin" }
        // The store's own name for itself: a PostgreSQL URL's password is not shown.
        let html = page.render(location: reader.store.location, actionsEnabled: requestGuard.actionsEnabled)
        let body: ResponseBody =
            request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: html))
        return Response(status: page.status, headers: headers, body: body)
    }

    /// The page for `request`'s method and path.
    private func route(_ request: Request) async throws -> Page {
        let path = request.uri.path
        let query = request.uri.query
        let now = Date()
        switch request.method {
        case .get, .head:
            switch path {
            case "/": return try await overview(try Parameters(query, known: []), now: now)
            case "/deliveries": return try await deliveries(query, section: .deliveries, now: now)
            case "/dead": return try await deliveries(query, section: .dead, now: now)
            case "/delivery": return try await delivery(try Parameters(query, known: ["key"]), now: now)
            case "/consumers":
                return try await consumers(try Parameters(query, known: ["component", "signal", "handler"]))
            case "/requeue": return try await confirmRequeue(query, now: now)
            case "/discard": return try await confirmDiscard(try Parameters(query, known: ["key"]), now: now)
            default: break
            }
        case .post:
            guard path == "/requeue" || path == "/discard" else { break }
            let form = try await formParameters(request, known: path == "/requeue" ? requeueFields : discardFields)
            try requestGuard.checkSameOrigin(request, form: form)
            try requestGuard.checkActionToken(form)
            return path == "/requeue" ? try await requeue(form) : try await discard(form)
        default:
            if ["/", "/deliveries", "/dead", "/delivery", "/consumers", "/requeue", "/discard"].contains(path) {
                throw Refusal(
                    status: .methodNotAllowed, title: "Method not allowed",
                    message: "\(request.method) is not answered here: pages are GET, actions POST.")
            }
        }
        if request.method == .post {
            throw Refusal(
                status: .methodNotAllowed, title: "Method not allowed",
                message: "Nothing changed: only /requeue and /discard take a POST.")
        }
        throw Refusal(status: .notFound, title: "Not found", message: "There is no page '\(path)' here.")
    }

    /// The fields of a form sent with a POST: `application/x-www-form-urlencoded`, at most
    /// ``maximumBody`` bytes.
    private func formParameters(_ request: Request, known: Set<String>) async throws -> Parameters {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() == "application/x-www-form-urlencoded" else {
            throw Refusal(
                status: .unsupportedMediaType, title: "Not a form",
                message: "Nothing changed: an action takes a form (application/x-www-form-urlencoded).")
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maximumBody)
        } catch {
            throw Refusal(
                status: .contentTooLarge, title: "Form too large",
                message: "Nothing changed: a form of more than \(Self.maximumBody) bytes is not read.")
        }
        guard let text = body.getString(at: body.readerIndex, length: body.readableBytes) else {
            throw InputError("the form is not text")
        }
        return try Parameters(text, known: known)
    }
}
#endif
