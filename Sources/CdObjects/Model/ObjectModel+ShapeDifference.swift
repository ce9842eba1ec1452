// Names the first difference between two models' stored shapes, in words, for the
// "incompatible model" error. It walks the same canonical `StoredShape` that the version hash
// encodes, in the same order, so it returns nil exactly when the two hashes are equal.

extension ObjectModel {
    /// The first stored-shape difference between `store` (the model the store was written with)
    /// and `self` (the model in use), or `nil` when the shapes are the same.
    ///
    /// ```swift
    /// model.firstStoredShapeDifference(from: storeModel)
    /// // "entity Employee: attribute salary is Integer 64 in the store, Integer 32 in the model"
    /// ```
    public func firstStoredShapeDifference(from store: ObjectModel) -> String? {
        StoredShape.firstDifference(store: StoredShape(store), model: StoredShape(self))
    }
}

extension StoredShape {
    static func firstDifference(store: StoredShape, model: StoredShape) -> String? {
        var found: String?
        walk(store.entities, model.entities, name: \.name) { s, m, name in
            switch (s, m) {
            case (_?, nil): found = "entity \(name) is in the store but not in the model"
            case (nil, _?): found = "entity \(name) is in the model but not in the store"
            case let (s?, m?): found = entityDifference(s, m)
            case (nil, nil): break
            }
            return found == nil
        }
        return found
    }

    private static func entityDifference(_ s: Entity, _ m: Entity) -> String? {
        let prefix = "entity \(s.name): "
        if s.parent != m.parent {
            return prefix + "parent is \(s.parent ?? "none") in the store, \(m.parent ?? "none") in the model"
        }
        var found: String?
        walk(s.attributes, m.attributes, name: \.name) { sa, ma, name in
            found = attributeDifference(sa, ma, name).map { prefix + $0 }
            return found == nil
        }
        if let found { return found }
        walk(s.relationships, m.relationships, name: \.name) { sr, mr, name in
            found = relationshipDifference(sr, mr, name).map { prefix + $0 }
            return found == nil
        }
        if let found { return found }
        if s.constraints != m.constraints {
            return prefix
                + "uniqueness constraints are \(describe(s.constraints)) in the store, "
                + "\(describe(m.constraints)) in the model"
        }
        walk(s.indexes, m.indexes, name: \.name) { si, mi, name in
            switch (si, mi) {
            case (_?, nil): found = prefix + "fetch index \(name) is in the store but not in the model"
            case (nil, _?): found = prefix + "fetch index \(name) is in the model but not in the store"
            case let (si?, mi?) where si != mi:
                found = prefix + "fetch index \(name) is \(describe(si)) in the store, \(describe(mi)) in the model"
            default: break
            }
            return found == nil
        }
        return found
    }

    private static func attributeDifference(_ s: Attribute?, _ m: Attribute?, _ name: String) -> String? {
        switch (s, m) {
        case (_?, nil): return "attribute \(name) is in the store but not in the model"
        case (nil, _?): return "attribute \(name) is in the model but not in the store"
        case let (s?, m?):
            if s.typeTag != m.typeTag {
                return "attribute \(name) is \(s.typeName) in the store, \(m.typeName) in the model"
            }
            if s.isOptional != m.isOptional {
                return
                    "attribute \(name) is \(s.isOptional ? "optional" : "required") in the store, "
                    + "\(m.isOptional ? "optional" : "required") in the model"
            }
            if s.isIndexed != m.isIndexed {
                return
                    "attribute \(name) is \(s.isIndexed ? "indexed" : "not indexed") in the store, "
                    + "\(m.isIndexed ? "indexed" : "not indexed") in the model"
            }
            return nil
        case (nil, nil): return nil
        }
    }

    private static func relationshipDifference(_ s: Relationship?, _ m: Relationship?, _ name: String) -> String? {
        switch (s, m) {
        case (_?, nil): return "relationship \(name) is in the store but not in the model"
        case (nil, _?): return "relationship \(name) is in the model but not in the store"
        case let (s?, m?):
            if s.destination != m.destination {
                return "relationship \(name) points to \(s.destination) in the store, \(m.destination) in the model"
            }
            if s.isToMany != m.isToMany {
                return
                    "relationship \(name) is \(s.isToMany ? "to-many" : "to-one") in the store, "
                    + "\(m.isToMany ? "to-many" : "to-one") in the model"
            }
            if s.isOrdered != m.isOrdered {
                return
                    "relationship \(name) is \(s.isOrdered ? "ordered" : "unordered") in the store, "
                    + "\(m.isOrdered ? "ordered" : "unordered") in the model"
            }
            return nil
        case (nil, nil): return nil
        }
    }

    private static func describe(_ constraints: [[String]]) -> String {
        constraints.isEmpty
            ? "none" : constraints.map { "(" + $0.joined(separator: ", ") + ")" }.joined(separator: ", ")
    }

    private static func describe(_ index: FetchIndexDescription) -> String {
        "("
            + index.elements.map {
                "\($0.property) \($0.isAscending ? "ascending" : "descending")\($0.kind == .rTree ? " R-tree" : "")"
            }.joined(separator: ", ") + ")"
    }

    /// Merges two lists sorted by byte order of `name`, calling `visit` with the element of
    /// each side (nil when one side lacks it) until `visit` returns false.
    private static func walk<T>(_ a: [T], _ b: [T], name: (T) -> String, _ visit: (T?, T?, String) -> Bool) {
        var i = 0, j = 0
        while i < a.count || j < b.count {
            let left = i < a.count ? a[i] : nil
            let right = j < b.count ? b[j] : nil
            let keepGoing: Bool
            switch (left, right) {
            case let (l?, r?) where name(l) == name(r):
                keepGoing = visit(l, r, name(l)); i += 1; j += 1
            case let (l?, r?):
                if byteOrder(name(l), name(r)) {
                    keepGoing = visit(l, nil, name(l)); i += 1
                } else {
                    keepGoing = visit(nil, r, name(r)); j += 1
                }
            case let (l?, nil):
                keepGoing = visit(l, nil, name(l)); i += 1
            case let (nil, r?):
                keepGoing = visit(nil, r, name(r)); j += 1
            case (nil, nil):
                keepGoing = false
            }
            if !keepGoing { return }
        }
    }
}
