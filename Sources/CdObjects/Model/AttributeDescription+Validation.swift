// Per-value validation of an attribute, producing Core Data's error codes (the
// `NSCocoaErrorDomain` values of CoreDataErrors.h, as in `CdError`): 1570 missing, 1550 wrong
// type, 1610/1620 number too large/small, 1630/1640 date too late/soon, 1650 invalid date,
// 1660/1670 string too long/short, 1680 pattern mismatch.
// The record layer calls `validate` at save for every attribute of every inserted or updated
// object; the checks run in Core Data's order: presence, type, range, length, pattern.

import Foundation

extension AttributeDescription {
    /// Checks one value against this attribute's optionality, type and rules.
    ///
    /// Returns `nil` when the value is acceptable. `entityName` and `objectID` are copied into
    /// the error; the record layer can also fill the object in later with ``CdError/withObjectID(_:)``.
    ///
    /// ```swift
    /// let age = AttributeDescription(name: "age", type: .integer16, isOptional: false,
    ///                                validation: .init(minValue: .integer(0)))
    /// age.validate(.integer(-1), entityName: "Person")?.code  // 1620
    /// ```
    public func validate(_ value: CdValue, entityName: String = "", objectID: String? = nil) -> CdError? {
        func failure(_ message: String) -> ValidationFailure {
            ValidationFailure(entity: entityName, objectID: objectID, key: name, message: message)
        }
        if value.isNull {
            return isOptional ? nil : .missingMandatoryProperty(failure("a value is required"))
        }
        guard type.accepts(value) else {
            return .validation(failure("\(value) is not a valid \(type.xmlName) value"))
        }
        switch value {
        case let .integer(v):
            if let range = type.integerRange {
                if v > range.upperBound { return .numberTooLarge(failure("\(v) does not fit \(type.xmlName)")) }
                if v < range.lowerBound { return .numberTooSmall(failure("\(v) does not fit \(type.xmlName)")) }
            }
            return checkNumberBounds(value, failure)
        case let .double(v):
            if type == .float, v.isFinite, abs(v) > Double(Float.greatestFiniteMagnitude) {
                return v > 0
                    ? .numberTooLarge(failure("\(v) does not fit Float"))
                    : .numberTooSmall(failure("\(v) does not fit Float"))
            }
            return checkNumberBounds(value, failure)
        case .decimal:
            return checkNumberBounds(value, failure)
        case let .date(d):
            let t = d.timeIntervalSinceReferenceDate
            guard t.isFinite else { return .invalidDate(failure("the date is not a finite point in time")) }
            if case let .date(min)? = validation.minValue, d < min {
                return .dateTooSoon(failure("\(d) is before the minimum \(min)"))
            }
            if case let .date(max)? = validation.maxValue, d > max {
                return .dateTooLate(failure("\(d) is after the maximum \(max)"))
            }
            return nil
        case let .string(s):
            let length = s.utf16.count
            if let min = validation.minLength, length < min {
                return .stringTooShort(failure("length \(length) is below the minimum \(min)"))
            }
            if let max = validation.maxLength, length > max {
                return .stringTooLong(failure("length \(length) is above the maximum \(max)"))
            }
            if let pattern = validation.pattern {
                guard let regex = try? NSRegularExpression(pattern: pattern) else {
                    return .validation(failure("invalid regular expression \(pattern)"))
                }
                let whole = NSRange(s.startIndex..<s.endIndex, in: s)
                let match = regex.firstMatch(in: s, options: [.anchored], range: whole)
                if match?.range != whole {
                    return .stringPatternMismatch(failure("\"\(s)\" does not match \(pattern)"))
                }
            }
            return nil
        case .null, .bool, .data, .uuid, .uri:
            return nil
        }
    }

    private func checkNumberBounds(_ value: CdValue, _ failure: (String) -> ValidationFailure) -> CdError? {
        if let min = validation.minValue, let order = NumericOrder.compare(value, min), order < 0 {
            return .numberTooSmall(failure("\(value) is below the minimum \(min)"))
        }
        if let max = validation.maxValue, let order = NumericOrder.compare(value, max), order > 0 {
            return .numberTooLarge(failure("\(value) is above the maximum \(max)"))
        }
        return nil
    }
}

/// Ordering of numeric `CdValue`s across cases: integers exactly, decimals as `Decimal`, the
/// rest as `Double`.
enum NumericOrder {
    /// -1, 0 or 1; `nil` when either side is not a number (or is NaN).
    static func compare(_ a: CdValue, _ b: CdValue) -> Int? {
        switch (a, b) {
        case let (.integer(x), .integer(y)):
            return x < y ? -1 : (x > y ? 1 : 0)
        case (.decimal, _), (_, .decimal):
            guard let x = decimal(a), let y = decimal(b) else { return nil }
            return x < y ? -1 : (x > y ? 1 : 0)
        default:
            guard let x = double(a), let y = double(b), !x.isNaN, !y.isNaN else { return nil }
            return x < y ? -1 : (x > y ? 1 : 0)
        }
    }

    static func isNumber(_ v: CdValue) -> Bool { double(v) != nil }

    private static func double(_ v: CdValue) -> Double? {
        switch v {
        case let .integer(i): return Double(i)
        case let .double(d): return d
        case let .decimal(d): return NSDecimalNumber(decimal: d).doubleValue
        default: return nil
        }
    }

    private static func decimal(_ v: CdValue) -> Decimal? {
        switch v {
        case let .integer(i): return Decimal(i)
        case let .double(d): return d.isFinite ? Decimal(d) : nil
        case let .decimal(d): return d
        default: return nil
        }
    }
}
