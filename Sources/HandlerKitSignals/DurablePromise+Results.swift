import Foundation
import HandlerKit

/// What a settled promise gives the task awaiting it: its value, or the error its settlement stands for.
extension SignalCenter {
    /// The value of `settlement`, or the error it stands for.
    static func result<Value: Decodable>(
        of settlement: PromiseSettlementRecord, _ record: PromiseRecord, as type: Value.Type
    ) throws(PromiseError) -> Value {
        switch settlement.outcome {
        case .fulfilled:
            do {
                return try JSONDecoder().decode(Value.self, from: Data(settlement.body))
            } catch {
                throw .undecodableValue(id: record.id, type: String(reflecting: Value.self), reason: "\(error)")
            }
        case .rejected:
            do {
                throw PromiseError.rejected(
                    id: record.id, try JSONDecoder().decode(PromiseRejection.self, from: Data(settlement.body)))
            } catch let error as PromiseError {
                throw error
            } catch {
                throw .undecodableValue(
                    id: record.id, type: String(reflecting: PromiseRejection.self), reason: "\(error)")
            }
        case .timedOut: throw .timedOut(id: record.id, deadline: record.deadline ?? settlement.settledAt)
        case .cancelled: throw .cancelled(id: record.id)
        }
    }

    /// The result carried by a settlement delivery's payload (handed over to a waiting task).
    static func result<Value: Decodable>(
        fromPayload payload: [UInt8], of record: PromiseRecord, as type: Value.Type
    ) throws(PromiseError) -> Value {
        let parsed: HandlerValue
        do {
            parsed = try HandlerValue(json: payload)
        } catch {
            throw .undecodableValue(id: record.id, type: "settlement", reason: "\(error)")
        }
        guard case .object(let members) = parsed else {
            throw .undecodableValue(id: record.id, type: "settlement", reason: "its payload is not a JSON object")
        }
        guard case .string(let text)? = members["outcome"], let outcome = PromiseOutcome(rawValue: text) else {
            throw .undecodableValue(id: record.id, type: "settlement", reason: "its outcome is missing or unknown")
        }
        let body = members[outcome == .rejected ? "rejection" : "value"].map { [UInt8]($0.jsonData()) } ?? []
        return try result(
            of: PromiseSettlementRecord(key: "", outcome: outcome, body: body, settledAt: Date()), record, as: type)
    }
}
