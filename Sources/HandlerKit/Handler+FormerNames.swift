/// Former names: a document written before a handler's parameter was renamed
/// (`@handler(renamed: ["acct": "account"])`) binds its value to the renamed parameter.
extension Handler {
    /// Renames each value bound under a former name of a parameter of `target` (or of
    /// `invalidationTarget`) to the parameter's current name, so it is checked, called and written back
    /// under that name. A value already bound under the current name wins: the former one is kept as it
    /// is (and ignored), so no stored value is lost.
    static func renameFormerParameters(
        _ entries: inout [BoundEntry], target: HandlerDescriptor, invalidationTarget: HandlerDescriptor?
    ) {
        guard target.hasFormerParameterNames || invalidationTarget?.hasFormerParameterNames == true else { return }
        for index in entries.indices {
            let name = entries[index].name
            guard
                let current = target.currentParameterName(forFormer: name)
                    ?? invalidationTarget?.currentParameterName(forFormer: name),
                !entries.contains(where: { $0.name == current })
            else { continue }
            entries[index].name = current
        }
    }
}
