// `ObjectID` as Codable data, so that value types holding one (`var objectID: ObjectID?`) can
// synthesise their own Codable conformance. The keyed form is `{"entity": …, "primaryKey": …}`.

/// Encodes as `{"entity": "Employee", "primaryKey": 42}`.
extension ObjectID: Codable {
    private enum CodingKeys: String, CodingKey {
        case entity, primaryKey
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let entity = try container.decode(String.self, forKey: .entity)
        let primaryKey = try container.decode(Int64.self, forKey: .primaryKey)
        self.init(entity: entity, primaryKey: primaryKey)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entity, forKey: .entity)
        try container.encode(primaryKey, forKey: .primaryKey)
    }
}
