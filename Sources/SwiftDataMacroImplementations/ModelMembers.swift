// What `@Model` reads from a class body: its persisted properties (each stored `var` that is not
// static, computed or `@Transient`), its `@Transient` stored properties, and its `#Unique` and
// `#Index` declarations.
//
// Invariants:
//  MM1. A persisted property is a single-binding `var` with a plain identifier pattern and no
//       accessor block; every other stored `var` is either transient (kept out of the schema) or
//       diagnosed (a persisted `let`, several bindings), never silently dropped.
//  MM2. Members the macros generate themselves (`_$backingData`, `_$observationRegistrar`, the
//       `_name` peers) carry `@Transient`, so reading them again never persists them.

import SwiftDiagnostics
import SwiftSyntax

/// One stored property of a model class.
struct ModelProperty {
    /// The property's name.
    let name: String
    /// The declared type, when written.
    let type: TypeSyntax?
    /// The initial value, when written.
    let initializer: ExprSyntax?
    /// `@Attribute(…)` / `@Relationship(…)` on the property: the macro name and its arguments.
    let schemaAttribute: (name: String, arguments: LabeledExprListSyntax)?
}

/// A `#Unique<T>(…)` or `#Index<T>(…)` in a model's body.
struct ModelConstraint {
    /// `Unique` or `Index`.
    let kind: String
    let arguments: LabeledExprListSyntax
}

/// The members of a model class that the macros act on.
struct ModelMembers {
    var persisted: [ModelProperty] = []
    var transient: [ModelProperty] = []
    var constraints: [ModelConstraint] = []
    var hasInitializer = false
    var diagnostics: [Diagnostic] = []

    init(_ members: MemberBlockItemListSyntax) {
        for member in members {
            if member.decl.is(InitializerDeclSyntax.self) { hasInitializer = true }
            if let expansion = member.decl.as(MacroExpansionDeclSyntax.self),
                ["Unique", "Index"].contains(expansion.macroName.text)
            {
                constraints.append(ModelConstraint(kind: expansion.macroName.text, arguments: expansion.arguments))
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            read(variable)
        }
    }

    private mutating func read(_ variable: VariableDeclSyntax) {
        guard Self.isStored(variable), !Self.isStatic(variable) else { return }
        let isTransient = Self.hasAttribute(variable, "Transient")
        if variable.bindings.count > 1 {
            if !isTransient {
                diagnostics.append(Diagnostic(node: variable, message: SwiftDataDiagnostic.multipleBindings))
            }
            return
        }
        guard let binding = variable.bindings.first,
            let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        else { return }
        let property = ModelProperty(
            name: name, type: binding.typeAnnotation?.type, initializer: binding.initializer?.value,
            schemaAttribute: Self.schemaAttribute(variable))
        if isTransient {
            transient.append(property)
            let optional = property.type.map(Self.isOptional) ?? false
            if property.initializer == nil, !optional {
                diagnostics.append(
                    Diagnostic(node: variable, message: SwiftDataDiagnostic.transientWithoutDefault(name: name)))
            }
        } else if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            diagnostics.append(Diagnostic(node: variable, message: SwiftDataDiagnostic.persistedLet(name: name)))
        } else {
            persisted.append(property)
        }
    }

    /// Whether `variable` is a persisted property (MM1): what `@_PersistedProperty` is added to.
    static func isPersisted(_ variable: VariableDeclSyntax) -> Bool {
        isStored(variable) && !isStatic(variable) && !hasAttribute(variable, "Transient")
            && variable.bindingSpecifier.tokenKind == .keyword(.var) && variable.bindings.count == 1
            && variable.bindings.first?.pattern.is(IdentifierPatternSyntax.self) == true
    }

    /// A `var`/`let` without accessors (observers included: a property with `didSet` is refused
    /// as persisted by being treated as computed, which keeps it out of the schema).
    static func isStored(_ variable: VariableDeclSyntax) -> Bool {
        variable.bindings.allSatisfy { $0.accessorBlock == nil }
    }

    static func isStatic(_ variable: VariableDeclSyntax) -> Bool {
        variable.modifiers.contains { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) }
    }

    static func hasAttribute(_ variable: VariableDeclSyntax, _ name: String) -> Bool {
        variable.attributes.contains { attributeName($0) == name }
    }

    /// The name of an attribute (`Transient` for `@Transient` and `@SwiftData.Transient`).
    static func attributeName(_ element: AttributeListSyntax.Element) -> String? {
        guard let attribute = element.as(AttributeSyntax.self) else { return nil }
        let type = attribute.attributeName
        if let member = type.as(MemberTypeSyntax.self) { return member.name.text }
        return type.as(IdentifierTypeSyntax.self)?.name.text
    }

    private static func schemaAttribute(_ variable: VariableDeclSyntax) -> (String, LabeledExprListSyntax)? {
        for element in variable.attributes {
            guard let name = attributeName(element), ["Attribute", "Relationship"].contains(name),
                let attribute = element.as(AttributeSyntax.self)
            else { continue }
            let arguments = attribute.arguments?.as(LabeledExprListSyntax.self) ?? LabeledExprListSyntax([])
            return (name, arguments)
        }
        return nil
    }

    /// `T?`, `T!` or `Optional<T>`.
    static func isOptional(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        return type.as(IdentifierTypeSyntax.self)?.name.text == "Optional"
    }
}
