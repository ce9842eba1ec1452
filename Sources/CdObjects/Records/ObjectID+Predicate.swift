// Object IDs as predicate arguments: `SELF == %@`, `department == %@`, `SELF IN %@` with
// `ObjectID`s compare by identity against the records a query evaluates.

extension ObjectID: PredicateObjectReference {
    /// The ID itself: records evaluated by a query answer the same identity.
    ///
    /// ```swift
    /// let p = try CdPredicate(format: "department == %@", ObjectID(entity: "Department", primaryKey: 1))
    /// ```
    public var predicateIdentity: AnyHashable { self }
}
