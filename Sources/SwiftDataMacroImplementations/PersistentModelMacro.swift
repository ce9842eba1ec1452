// `@Model`: a class becomes a `PersistentModel` and `Observable`. The member role adds the
// backing data, the schema metadata (one `Schema.PropertyMetadata` per persisted property, then
// one per `#Unique`/`#Index`), `init(backingData:)`, the observation registrar and
// `_$storeValuesChanged()` (each persisted property's observation events); the member
// attribute role marks each persisted property `@_PersistedProperty`; the extension role adds
// the conformances, and declares models not Sendable, as SwiftData does.
//
// Invariants:
//  PM1. Only classes expand; on any other declaration the member role reports
//       `modelNotAClass` once and every role adds nothing.
//  PM2. `schemaMetadata` lists the persisted properties in declaration order, and
//       `@_PersistedProperty` is added to exactly those properties (both use ModelMembers, MM1).

import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// The implementation of `@Model`.
/// A class, so that the plug-in (`SwiftDataMacros`) declares the macro under its own module's
/// name as an empty subclass (SP1 there).
open class PersistentModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let model = declaration.as(ClassDeclSyntax.self) else {
            if let (kind, name) = SwiftDataDiagnostic.kind(of: declaration) {  // keeps PM1
                context.diagnose(
                    Diagnostic(node: node, message: SwiftDataDiagnostic.modelNotAClass(kind: kind, name: name)))
            }
            return []
        }
        let members = ModelMembers(model.memberBlock.members)
        members.diagnostics.forEach(context.diagnose)
        if !members.hasInitializer {
            context.diagnose(
                Diagnostic(node: node, message: SwiftDataDiagnostic.modelWithoutInitializer(name: model.name.text)))
        }
        let name = model.name.text
        let isFinal = model.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        let isPublic = model.modifiers.contains {
            [.keyword(.public), .keyword(.open)].contains($0.name.tokenKind)
        }
        let access = isPublic ? "public " : ""
        let staticKeyword = isFinal ? "static" : "class"
        let metadata =
            (members.persisted.map { propertyMetadata($0, model: name) }
                + members.constraints.map { constraintMetadata($0, model: name) })
        let metadataList =
            metadata.isEmpty ? "[]" : "[\n" + metadata.map { "    " + $0 }.joined(separator: ",\n") + "\n]"
        let initializations = members.persisted.map { "_\($0.name) = SwiftData._SwiftDataNoType()" }
        // The observation events of a refresh from another context's save (MC5 of ModelContext).
        let changes = members.persisted.map {
            "_$observationRegistrar.withMutation(of: self, keyPath: \\\(name).\($0.name)) {}"
        }
        return [
            """
            @Transient private var _$backingData: any SwiftData.BackingData<\(raw: name)> = \
            \(raw: name).createBackingData()
            """,
            """
            \(raw: access)var persistentBackingData: any SwiftData.BackingData<\(raw: name)> {
                get { _$backingData }
                set { _$backingData = newValue }
            }
            """,
            """
            \(raw: access)\(raw: staticKeyword) var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                \(raw: metadataList)
            }
            """,
            """
            \(raw: access)required init(backingData: any SwiftData.BackingData<\(raw: name)>) {
                \(raw: (initializations + ["self.persistentBackingData = backingData"]).joined(separator: "\n"))
            }
            """,
            "@Transient private let _$observationRegistrar = Observation.ObservationRegistrar()",
            """
            \(raw: access)func _$storeValuesChanged() {
                \(raw: changes.joined(separator: "\n"))
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
            ModelMembers.isPersisted(variable)  // keeps PM2
        else { return [] }
        return ["@_PersistedProperty"]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        let requested = Set(protocols.map { $0.trimmedDescription })
        var extensions: [ExtensionDeclSyntax] = []
        if requested.isEmpty || requested.contains(where: { $0.hasSuffix("PersistentModel") }) {
            extensions.append(try ExtensionDeclSyntax("extension \(type.trimmed): SwiftData.PersistentModel {}"))
        }
        if requested.isEmpty || requested.contains(where: { $0.hasSuffix("Observable") }) {
            extensions.append(try ExtensionDeclSyntax("extension \(type.trimmed): Observation.Observable {}"))
        }
        if requested.contains(where: { $0.hasSuffix("Sendable") }) {
            extensions.append(
                try ExtensionDeclSyntax(
                    """
                    @available(*, unavailable, message: "PersistentModels are not Sendable; pass a \
                    PersistentIdentifier between isolation domains, or use a ModelActor")
                    extension \(type.trimmed): Sendable {}
                    """))
        }
        return extensions
    }

    /// `Schema.PropertyMetadata(…)` for one persisted property.
    static func propertyMetadata(_ property: ModelProperty, model: String) -> String {
        var defaultValue = "nil"
        if let initializer = property.initializer {
            defaultValue =
                property.type.map { "(\(initializer.trimmedDescription) as \($0.trimmedDescription))" }
                ?? initializer.trimmedDescription
        }
        var metadata = "nil"
        if let (kind, arguments) = property.schemaAttribute {
            metadata = "SwiftData.Schema.\(kind)(\(arguments.trimmedDescription))"
        }
        return "SwiftData.Schema.PropertyMetadata(name: \"\(property.name)\", keypath: \\\(model).\(property.name), "
            + "defaultValue: \(defaultValue), metadata: \(metadata))"
    }

    /// The metadata entry of a `#Unique` or `#Index` declaration.
    static func constraintMetadata(_ constraint: ModelConstraint, model: String) -> String {
        "SwiftData.Schema.PropertyMetadata(name: \"SwiftData.Schema.\(constraint.kind)\", keypath: \\\(model).self, "
            + "defaultValue: nil, metadata: SwiftData.Schema.\(constraint.kind)<\(model)>("
            + "\(constraint.arguments.trimmedDescription)))"
    }
}
