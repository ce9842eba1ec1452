// `CAST(value, "Class")`: the NSPredicate way to write constants that have no literal syntax.
// Casts are folded at parse time, so the AST only ever holds the resulting constant; the
// description prints such constants back as CASTs (see CdPredicate+Description.swift), which is
// what lets dates, UUIDs, URLs, data and decimals round-trip through text.

import Foundation

enum PredicateCast {
    /// `value` converted to the Foundation class `typeName`, or nil if that cast is not defined.
    static func cast(_ value: CdValue, to typeName: String) -> CdValue? {
        switch (typeName, value) {
        case let ("NSDate", .integer(v)): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case let ("NSDate", .double(v)): return .date(Date(timeIntervalSinceReferenceDate: v))
        case let ("NSDate", .string(s)):
            if let seconds = Double(s) { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            return isoDate(s).map(CdValue.date)
        case let ("NSDate", .date(d)): return .date(d)
        case let ("NSNumber", .string(s)):
            if let v = Int64(s) { return .integer(v) }
            return Double(s).map(CdValue.double)
        case ("NSNumber", .integer), ("NSNumber", .double), ("NSNumber", .decimal): return value
        case let ("NSNumber", .bool(b)): return .integer(b ? 1 : 0)
        case let ("NSDecimalNumber", .string(s)):
            return Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")).map(CdValue.decimal)
        case let ("NSDecimalNumber", .integer(v)): return .decimal(Decimal(v))
        case let ("NSDecimalNumber", .double(v)): return .decimal(Decimal(v))
        case let ("NSString", .string(s)): return .string(s)
        case let ("NSString", .integer(v)): return .string(String(v))
        case let ("NSString", .double(v)): return .string(String(v))
        case let ("NSUUID", .string(s)): return UUID(uuidString: s).map(CdValue.uuid)
        case let ("NSURL", .string(s)): return URL(string: s).map(CdValue.uri)
        case let ("NSData", .string(s)): return Data(base64Encoded: s).map(CdValue.data)
        default: return nil
        }
    }

    /// An ISO 8601 date with or without fractional seconds. A new formatter per call: formatters
    /// are not Sendable, and CAST of a date string happens once per parse.
    private static func isoDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
