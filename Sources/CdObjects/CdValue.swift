import Foundation

/// One attribute value as the object store holds it: the runtime form of every Core Data
/// attribute type. Integer 16/32/64 are `integer`, Float and Double are `double`.
public enum CdValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case uri(URL)

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    public var description: String {
        switch self {
        case .null: return "nil"
        case let .integer(v): return "\(v)"
        case let .double(v): return "\(v)"
        case let .decimal(v): return "\(v)"
        case let .string(v): return "\"\(v)\""
        case let .bool(v): return v ? "YES" : "NO"
        case let .date(v): return "\(v)"
        case let .data(v): return "<\(v.count) bytes>"
        case let .uuid(v): return v.uuidString
        case let .uri(v): return v.absoluteString
        }
    }
}
