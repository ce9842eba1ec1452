// The diagnostics SwiftData's macros give on misuse. Each names the declaration at fault and
// says what to write instead; all are errors, so a misused macro never expands to code that
// compiles and then misbehaves.

import SwiftDiagnostics
import SwiftSyntax

/// One misuse of a SwiftData macro.
enum SwiftDataDiagnostic: DiagnosticMessage {
    /// `@Model` on a struct, an enum or an actor: models are classes.
    case modelNotAClass(kind: String, name: String)
    /// `@Model` on a class that declares no initializer.
    case modelWithoutInitializer(name: String)
    /// A persisted `let`: the macro persists properties through accessors, which a `let` cannot have.
    case persistedLet(name: String)
    /// `var a, b: Int` in a model: accessors attach to one binding at a time.
    case multipleBindings
    /// A non-optional `@Transient` property without a default: `init(backingData:)` could not
    /// give it a value.
    case transientWithoutDefault(name: String)
    /// `@ModelActor` on something other than an actor.
    case modelActorNotAnActor(kind: String)

    var message: String {
        switch self {
        case let .modelNotAClass(kind, name):
            return "@Model can only be applied to a class; '\(name)' is \(kind)"
        case let .modelWithoutInitializer(name):
            return "@Model requires an initializer be provided; add an init to '\(name)'"
        case let .persistedLet(name):
            return "a persisted property must be declared with 'var'; change 'let \(name)' to 'var \(name)', "
                + "or mark it @Transient"
        case .multipleBindings:
            return "declare one persisted property per 'var' in a @Model class"
        case let .transientWithoutDefault(name):
            return "@Transient property '\(name)' needs a default value (or an optional type)"
        case let .modelActorNotAnActor(kind):
            return "@ModelActor can only be applied to an actor, not \(kind)"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .modelNotAClass: id = "modelNotAClass"
        case .modelWithoutInitializer: id = "modelWithoutInitializer"
        case .persistedLet: id = "persistedLet"
        case .multipleBindings: id = "multipleBindings"
        case .transientWithoutDefault: id = "transientWithoutDefault"
        case .modelActorNotAnActor: id = "modelActorNotAnActor"
        }
        return MessageID(domain: "SwiftDataMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }

    /// The kind of a declaration as a diagnostic names it ("a struct"), nil for a class.
    static func kind(of declaration: some DeclGroupSyntax) -> (kind: String, name: String)? {
        if let s = declaration.as(StructDeclSyntax.self) { return ("a struct", s.name.text) }
        if let e = declaration.as(EnumDeclSyntax.self) { return ("an enum", e.name.text) }
        if let a = declaration.as(ActorDeclSyntax.self) { return ("an actor", a.name.text) }
        if let p = declaration.as(ProtocolDeclSyntax.self) { return ("a protocol", p.name.text) }
        if declaration.is(ExtensionDeclSyntax.self) { return ("an extension", "extension") }
        return nil
    }
}
