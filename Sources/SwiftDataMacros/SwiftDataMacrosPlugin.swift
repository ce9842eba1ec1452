// The compiler plug-in that carries SwiftData's macros. Each macro is declared in the SwiftData
// module (Macros.swift there) as `#externalMacro(module: "SwiftDataMacros", type: …)`, and its
// expansion is written in SwiftDataMacroImplementations, an ordinary target that the expansion
// tests link (Package.swift says why the tests must not depend on this `.macro` target).
//
// Invariant:
//  SP1. The compiler finds a macro by the name `SwiftDataMacros.<type>` (swift-syntax's
//       CompilerPlugin compares `String(reflecting:)` of each type below), so each type is a
//       subclass declared here, under the name Macros.swift gives, of the implementation class of
//       the same name: it inherits the roles and their static expansions and adds nothing.

import SwiftCompilerPlugin
import SwiftDataMacroImplementations
import SwiftSyntaxMacros

@main
struct SwiftDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        PersistentModelMacro.self,
        PersistedPropertyMacro.self,
        SchemaPropertyMacro.self,
        SchemaConstraintMacro.self,
        ModelActorMacro.self,
    ]
}

/// `@Model`.
final class PersistentModelMacro: SwiftDataMacroImplementations.PersistentModelMacro {}
/// `@_PersistedProperty`.
final class PersistedPropertyMacro: SwiftDataMacroImplementations.PersistedPropertyMacro {}
/// `@Attribute`, `@Relationship`, `@Transient`.
final class SchemaPropertyMacro: SwiftDataMacroImplementations.SchemaPropertyMacro {}
/// `#Unique`, `#Index`.
final class SchemaConstraintMacro: SwiftDataMacroImplementations.SchemaConstraintMacro {}
/// `@ModelActor`.
final class ModelActorMacro: SwiftDataMacroImplementations.ModelActorMacro {}
