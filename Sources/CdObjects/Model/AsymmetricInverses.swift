// Asymmetric inverses in model files: a relationship that names an inverse which names another
// relationship back. Core Data loads such models (Xcode only warns), and real ones have them:
// artsy's "ArtsyPartner 5" has `Image.artist` naming `Artist.thumbnail`, while
// `Artist.thumbnail` ⇄ `Image.thumbnail` name each other.
//
// The model file reader reads them as one-way relationships: the relationship that is not named
// back keeps its destination, cardinality and delete rule but loses its inverse, with a
// `ModelWarning`; the pair that names each other stays a pair. So OM4 holds for the resolved
// model, and inverse maintenance never follows a claim the other side does not make (setting
// `image.artist` leaves `artist.thumbnail` alone, which stays in step with `image.thumbnail`).
// docs/MODEL.md, "Asymmetric inverses", says what this means for an app.
//
// Only the asymmetry is forgiven: an inverse that does not exist, or whose destination is not
// the source's hierarchy, still fails resolution (`missingInverse`, `inverseMismatch`).

/// Entities with each asymmetric inverse removed, and one warning per removal.
func droppingAsymmetricInverses(
    _ entities: [EntityDescription], path: String
) -> (entities: [EntityDescription], warnings: [ModelWarning]) {
    let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    /// The relationship of that name on `entity` or an ancestor (cycles stop the walk).
    func relationship(_ name: String, of entity: String) -> RelationshipDescription? {
        var next: String? = entity
        var seen: Set<String> = []
        while let current = next, seen.insert(current).inserted, let e = byName[current] {
            if let r = e.relationships.first(where: { $0.name == name }) { return r }
            next = e.parent
        }
        return nil
    }
    var result = entities
    var warnings: [ModelWarning] = []
    for (i, entity) in entities.enumerated() {
        for (j, r) in entity.relationships.enumerated() {
            guard let inverseName = r.inverse, let inverse = relationship(inverseName, of: r.destination),
                let back = inverse.inverse, back != r.name
            else { continue }
            result[i].relationships[j].inverse = nil
            warnings.append(
                ModelWarning(
                    element: "relationship", file: path, line: nil,
                    message:
                        "\(entity.name).\(r.name) names \(r.destination).\(inverseName) as its inverse, but "
                        + "\(r.destination).\(inverseName) names \(back); \(entity.name).\(r.name) is read as a "
                        + "relationship without inverse"))
        }
    }
    return (result, warnings)
}
