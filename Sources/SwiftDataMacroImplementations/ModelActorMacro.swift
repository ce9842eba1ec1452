// `@ModelActor`: an actor that owns a `ModelContext` of its own and runs on that context's serial
// executor. The member role adds `modelExecutor`, `modelContainer` and `init(modelContainer:)`;
// the extension role adds the `ModelActor` conformance, whose extension supplies
// `unownedExecutor` and `modelContext`.

import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// The implementation of `@ModelActor`.
/// A class, so that the plug-in (`SwiftDataMacros`) declares the macro under its own module's
/// name as an empty subclass (SP1 there).
open class ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            let kind = SwiftDataDiagnostic.kind(of: declaration)?.kind ?? "a class"
            context.diagnose(Diagnostic(node: node, message: SwiftDataDiagnostic.modelActorNotAnActor(kind: kind)))
            return []
        }
        return [
            "nonisolated let modelExecutor: any SwiftData.ModelExecutor",
            "nonisolated let modelContainer: SwiftData.ModelContainer",
            """
            init(modelContainer: SwiftData.ModelContainer) {
                let modelContext = SwiftData.ModelContext(modelContainer)
                self.modelExecutor = SwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): SwiftData.ModelActor {}")]
    }
}
