/// What `@handler` checks that the build plugin ran: each handler expands to a private overload whose
/// parameter has this type. The file `HandlerKitPlugin` generates declares `_HandlerKitGeneratedFile`
/// in the module, which shadows this one; without that file this declaration is found, and the
/// compiler reports its message at the `@handler` line. Not for use in code.
@available(
    *, unavailable,
    message:
        "this target uses @handler but the HandlerKit build plugin did not run for it: add `plugins: [.plugin(name: \"HandlerKitPlugin\", package: \"HandlerKit\")]` to the target in Package.swift (its name is in this parameter's label)"
)
public enum _HandlerKitGeneratedFile {}
