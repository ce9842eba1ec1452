// The checks behind `ObjectModel.init(entities:)`: invariants OM2 (acyclic inheritance), OM1
// (property names), OM3/OM4 (destinations and inverses), OM5 (constraints, indexes) and OM6
// (defaults, validation rules). Each throws the first `ModelError` it finds.

import Foundation

extension ObjectModel {
    /// Keeps OM2: following `parent` from any entity reaches a root.
    func checkInheritanceIsAcyclic() throws(ModelError) {
        for start in entities {
            var chain = [start.name]
            var next = start.parent
            while let name = next {
                if let at = chain.firstIndex(of: name) {
                    throw .inheritanceCycle(entity: start.name, cycle: Array(chain[at...]) + [name])
                }
                chain.append(name)
                next = entity(named: name)?.parent
            }
        }
    }

    /// Keeps OM1 (property names) and OM6 (defaults and validation rules) for one entity.
    func checkProperties(of entity: EntityDescription) throws(ModelError) {
        var seen = Set(ancestors(of: entity.name).flatMap(\.propertyNames))
        for name in entity.propertyNames {
            guard !name.isEmpty else { throw .emptyName(entity: entity.name) }
            guard seen.insert(name).inserted else {
                throw .duplicateProperty(entity: entity.name, property: name)
            }
        }
        for attribute in entity.attributes {
            try check(attribute, in: entity.name)
        }
        for r in entity.relationships {
            if r.minCount < 0 {
                throw .invalidCountBounds(
                    entity: entity.name, relationship: r.name, detail: "minCount \(r.minCount) is negative")
            }
            if let maxCount = r.maxCount, maxCount < 1 || maxCount < r.minCount {
                throw .invalidCountBounds(
                    entity: entity.name, relationship: r.name,
                    detail: "maxCount \(maxCount) is below 1 or below minCount \(r.minCount)")
            }
        }
    }

    private func check(_ a: AttributeDescription, in entity: String) throws(ModelError) {
        if let value = a.defaultValue, !value.isNull {
            guard a.type.accepts(value) else {
                throw .invalidDefaultValue(
                    entity: entity, attribute: a.name, detail: "\(value) is not a \(a.type.xmlName) value")
            }
            if case let .integer(v) = value, let range = a.type.integerRange, !range.contains(v) {
                throw .invalidDefaultValue(
                    entity: entity, attribute: a.name, detail: "\(v) does not fit \(a.type.xmlName)")
            }
        }
        let rules = a.validation
        for bound in [rules.minValue, rules.maxValue].compactMap({ $0 }) {
            let fits: Bool
            switch a.type {
            case .date:
                if case .date = bound { fits = true } else { fits = false }
            default:
                fits = a.type.isNumeric && NumericOrder.isNumber(bound)
            }
            guard fits else {
                throw .invalidValidationRule(
                    entity: entity, attribute: a.name,
                    detail: "bound \(bound) does not apply to \(a.type.xmlName)")
            }
        }
        if let min = rules.minValue, let max = rules.maxValue {
            let inverted: Bool
            if case let .date(x) = min, case let .date(y) = max {
                inverted = x > y
            } else {
                inverted = (NumericOrder.compare(min, max) ?? 0) > 0
            }
            if inverted {
                throw .invalidValidationRule(
                    entity: entity, attribute: a.name, detail: "minimum \(min) is above maximum \(max)")
            }
        }
        if rules.minLength != nil || rules.maxLength != nil || rules.pattern != nil {
            guard a.type == .string else {
                throw .invalidValidationRule(
                    entity: entity, attribute: a.name,
                    detail: "length and pattern rules apply to String, not \(a.type.xmlName)")
            }
        }
        if (rules.minLength ?? 0) < 0 || (rules.maxLength ?? 0) < 0
            || (rules.maxLength ?? Int.max) < (rules.minLength ?? 0)
        {
            throw .invalidValidationRule(
                entity: entity, attribute: a.name,
                detail:
                    "length bounds \(rules.minLength.map(String.init) ?? "-")..."
                    + "\(rules.maxLength.map(String.init) ?? "-") are inconsistent"
            )
        }
        if let pattern = rules.pattern {
            do { _ = try NSRegularExpression(pattern: pattern) } catch {
                throw .invalidValidationRule(
                    entity: entity, attribute: a.name, detail: "regular expression \(pattern) does not compile")
            }
        }
    }

    /// Keeps OM3 and OM4 for the relationships an entity declares.
    func checkRelationships(of entity: EntityDescription) throws(ModelError) {
        for r in entity.relationships {
            guard self.entity(named: r.destination) != nil else {
                throw .missingDestination(entity: entity.name, relationship: r.name, destination: r.destination)
            }
            guard let inverseName = r.inverse else { continue }
            guard let inverse = relationship(inverseName, of: r.destination) else {
                throw .missingInverse(
                    entity: entity.name, relationship: r.name, destination: r.destination, inverse: inverseName)
            }
            // The inverse's destination must be this entity's hierarchy: the entity itself, an
            // ancestor (inverse declared against the parent) or a sub-entity.
            let related =
                isEntity(entity.name, kindOf: inverse.destination) || isEntity(inverse.destination, kindOf: entity.name)
            guard related else {
                throw .inverseMismatch(
                    entity: entity.name, relationship: r.name, inverse: inverseName,
                    detail: "on \(r.destination) points to \(inverse.destination), not \(entity.name)")
            }
            guard inverse.inverse == r.name else {
                let other = inverse.inverse.map { "names \($0) as its inverse" } ?? "has no inverse"
                throw .inverseMismatch(
                    entity: entity.name, relationship: r.name, inverse: inverseName,
                    detail: "on \(r.destination) \(other), not \(r.name)")
            }
        }
    }

    /// Keeps OM5 for one entity.
    func checkConstraintsAndIndexes(of entity: EntityDescription) throws(ModelError) {
        let attributes = Set(allAttributes(of: entity.name).map(\.name))
        let relationships = Dictionary(
            allRelationships(of: entity.name).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for constraint in entity.uniquenessConstraints {
            guard !constraint.isEmpty else {
                throw .invalidConstraint(entity: entity.name, property: "", detail: "a constraint lists no property")
            }
            for property in constraint {
                if attributes.contains(property) { continue }
                guard let r = relationships[property] else {
                    throw .invalidConstraint(entity: entity.name, property: property, detail: "no such property")
                }
                guard !r.isToMany else {
                    throw .invalidConstraint(
                        entity: entity.name, property: property, detail: "to-many relationships cannot be constrained")
                }
            }
        }
        for index in entity.fetchIndexes {
            guard !index.elements.isEmpty else {
                throw .invalidFetchIndex(entity: entity.name, index: index.name, property: "")
            }
            for element in index.elements
            where !attributes.contains(element.property) && relationships[element.property] == nil {
                throw .invalidFetchIndex(entity: entity.name, index: index.name, property: element.property)
            }
        }
    }
}
