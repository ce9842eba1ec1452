// SwiftData's macros, under the names an app's source uses; implemented by the SwiftDataMacros
// plug-in. Their expansions refer to this module's types as `SwiftData.…`, and to Observation's
// registrar: `import SwiftData` brings Foundation and Observation with it, as on Apple's systems,
// so a model file that imports SwiftData only compiles.

@_exported import Foundation
@_exported import Observation

/// Makes a class a persistent model: `PersistentModel` and `Observable`, each stored `var`
/// persisted (unless `@Transient`), with `init(backingData:)` and `schemaMetadata` generated.
///
/// ```swift
/// @Model
/// final class Trip {
///     @Attribute(.unique) var name: String
///     init(name: String) { self.name = name }
/// }
/// ```
@attached(
    member,
    names: named(_$backingData), named(persistentBackingData), named(schemaMetadata), named(init),
    named(_$observationRegistrar), named(_$storeValuesChanged))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable, Sendable)
public macro Model() = #externalMacro(module: "SwiftDataMacros", type: "PersistentModelMacro")

/// Added by `@Model` to each persisted property: its value lives in the model's backing data,
/// and reads and writes are reported to the model's observation registrar.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty() = #externalMacro(module: "SwiftDataMacros", type: "PersistedPropertyMacro")

/// Options of a persisted attribute: `@Attribute(.unique) var code: String`.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil
) = #externalMacro(module: "SwiftDataMacros", type: "SchemaPropertyMacro")

/// Options of a relationship: `@Relationship(deleteRule: .cascade, inverse: \Item.owner)`.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
    inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "SwiftDataMacros", type: "SchemaPropertyMacro")

/// A stored property that is not persisted (and not observed): `@Transient var isSelected = false`.
@attached(peer)
public macro Transient() = #externalMacro(module: "SwiftDataMacros", type: "SchemaPropertyMacro")

/// Properties whose values, together, identify one model: inserting a model whose values match a
/// saved one updates that one (an upsert). `#Unique<Trip>([\.name, \.startDate])`.
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "SwiftDataMacros", type: "SchemaConstraintMacro")

/// Properties the store keeps an index on: `#Index<Trip>([\.startDate], [\.name, \.startDate])`.
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "SwiftDataMacros", type: "SchemaConstraintMacro")

/// Indexes of a kind: `#Index<Place>(.binary([\.name]), .rtree([\.latitude, \.longitude]))`. The
/// store keeps every index as a B-tree on its properties in order, so an `.rtree` index answers
/// the same queries as a `.binary` one on the same properties (docs/SWIFTDATA.md §6).
@freestanding(declaration)
public macro Index<T>(_ indices: Schema.Index<T>.Types<T>...) =
    #externalMacro(module: "SwiftDataMacros", type: "SchemaConstraintMacro")

/// Makes an actor a `ModelActor`: it owns a `ModelContext` on the given container and runs on
/// that context's serial executor.
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func importTrips() throws { modelContext.insert(Trip(name: "Oslo")); try modelContext.save() }
/// }
/// ```
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "SwiftDataMacros", type: "ModelActorMacro")
