// `@_PersistedProperty` (added by `@Model` to each persisted property): the property's storage
// moves into the model's backing data. The accessor role adds an init accessor (so the class's
// own initializer writes into the backing data), a getter that reports the access to the
// observation registrar, and a setter that reports the mutation; the peer role adds the `_name`
// placeholder the init accessor initializes, which holds no value.

import SwiftSyntax
import SwiftSyntaxMacros

/// The implementation of `@_PersistedProperty`.
/// A class, so that the plug-in (`SwiftDataMacros`) declares the macro under its own module's
/// name as an empty subclass (SP1 there).
open class PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let name = propertyName(declaration) else { return [] }
        return [
            """
            @storageRestrictions(accesses: _$backingData, initializes: _\(raw: name))
            init(initialValue) {
                _$backingData.setValue(forKey: \\.\(raw: name), to: initialValue)
                _\(raw: name) = SwiftData._SwiftDataNoType()
            }
            """,
            """
            get {
                _$observationRegistrar.access(self, keyPath: \\.\(raw: name))
                return self.getValue(forKey: \\.\(raw: name))
            }
            """,
            """
            set {
                _$observationRegistrar.withMutation(of: self, keyPath: \\.\(raw: name)) {
                    self.setValue(forKey: \\.\(raw: name), to: newValue)
                }
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let name = propertyName(declaration) else { return [] }
        return ["@Transient private var _\(raw: name): SwiftData._SwiftDataNoType"]
    }

    /// The name of a single-binding `var` (MM1), nil for anything else.
    static func propertyName(_ declaration: some DeclSyntaxProtocol) -> String? {
        guard let variable = declaration.as(VariableDeclSyntax.self), ModelMembers.isPersisted(variable) else {
            return nil
        }
        return variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
    }
}
