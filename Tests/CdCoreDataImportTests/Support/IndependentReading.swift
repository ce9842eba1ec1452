import CdObjects
import Foundation

/// What a Core Data column value means for an attribute type, decoded by the tests' own rules
/// (seconds since 2001 for dates, 16 raw bytes for UUIDs, …) to check the importer against.
func expectedValue(_ value: SQLValue, _ type: AttributeType) -> CdValue? {
    switch (value, type) {
    case (.null, _): return .null
    case let (.integer(i), .integer16), let (.integer(i), .integer32), let (.integer(i), .integer64):
        return .integer(i)
    case let (.integer(i), .boolean): return .bool(i != 0)
    case let (.integer(i), .double): return .double(Double(i))
    case let (.real(d), .double): return .double(d)
    case let (.integer(i), .float): return .double(Double(Float(Double(i))))
    case let (.real(d), .float): return .double(Double(Float(d)))
    case let (.integer(i), .decimal): return .decimal(Decimal(i))
    case let (.real(d), .decimal): return Decimal(string: "\(d)").map(CdValue.decimal)
    case let (.text(t), .decimal): return t == "NaN" ? .decimal(.nan) : Decimal(string: t).map(CdValue.decimal)
    case let (.text(t), .string): return .string(t)
    case let (.integer(i), .date): return .date(Date(timeIntervalSinceReferenceDate: Double(i)))
    case let (.real(d), .date): return .date(Date(timeIntervalSinceReferenceDate: d))
    case let (.blob(b), .binaryData), let (.blob(b), .transformable): return .data(b)
    case let (.blob(b), .uuid) where b.count == 16:
        let u = [UInt8](b)
        return .uuid(
            UUID(
                uuid: (
                    u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]
                )))
    case let (.text(t), .uri): return URL(string: t).map(CdValue.uri)
    default: return nil
    }
}

/// Equal values; decimals by their text, so that NaN equals NaN.
func sameValue(_ a: CdValue, _ b: CdValue) -> Bool {
    if case let .decimal(x) = a, case let .decimal(y) = b { return x.description == y.description }
    return a == b
}

extension ObjectStore {
    /// An object's stored values, read in a snapshot of its own.
    func storedValues(_ id: ObjectID) throws -> [String: PropertyValue]? {
        let snapshot = try beginRead()
        defer { snapshot.end() }
        return try snapshot.values(of: id)
    }

    func storedExists(_ id: ObjectID) throws -> Bool {
        let snapshot = try beginRead()
        defer { snapshot.end() }
        return try snapshot.exists(id)
    }
}
