// The compiler plug-in that carries SwiftData's macros. Each macro is declared in the SwiftData
// module (Macros.swift there) under the name an app's source uses, and implemented here.

import SwiftCompilerPlugin
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
