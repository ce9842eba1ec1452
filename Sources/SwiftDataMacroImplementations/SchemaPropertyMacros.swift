// The macros that only describe: `@Attribute`, `@Relationship` and `@Transient` on a property,
// `#Unique` and `#Index` in a model's body. They expand to nothing; `@Model` reads them from the
// class's syntax (ModelMembers) and turns them into schema metadata, as SwiftData does.

import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute(…)`, `@Relationship(…)`, `@Transient`: peers that add no code.
/// A class, so that the plug-in (`SwiftDataMacros`) declares the macro under its own module's
/// name as an empty subclass (SP1 there).
open class SchemaPropertyMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}

/// `#Unique<T>(…)` and `#Index<T>(…)`: declarations that add no code.
/// A class, so that the plug-in (`SwiftDataMacros`) declares the macro under its own module's
/// name as an empty subclass (SP1 there).
open class SchemaConstraintMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}
