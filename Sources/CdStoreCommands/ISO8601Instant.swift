import Foundation

// Dates as ISO 8601 text in UTC, exactly: what `query` and `export` write and `import` reads.
//
// Invariants:
//  IS1. `parse(format(d)) == d` for every finite date: the whole seconds are written from the
//       integer part of `timeIntervalSinceReferenceDate` (exact), and the fraction with the fewest
//       digits (none, then 1 up to 17) that read back to the same `Double`. A date whose fraction
//       needs more than six digits therefore gets them; a whole second gets none.
//  IS2. Parsing computes `whole seconds since 2001 + fraction` in that order, the same arithmetic
//       formatting checks, never going through 1970 (whose 978,307,200 s offset would round).
//  IS3. Only this form is read: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; anything else is nil.

/// ISO 8601 dates in UTC that read back to the same instant (IS1–IS3).
package enum ISO8601Instant {
    /// Seconds from 1970-01-01 to 2001-01-01, the reference date.
    private static let referenceOffset: Int64 = 978_307_200

    /// `date` as `2026-11-26T21:50:07Z`, with fraction digits when it is not a whole second (IS1).
    package static func format(_ date: Date) -> String {
        let t = date.timeIntervalSinceReferenceDate
        guard t.isFinite else { return "\(t)" }
        let whole = t.rounded(.down)
        let fraction = t - whole  // exact: both are within a factor of two of each other or zero
        var text = civil(Int64(whole) + referenceOffset)
        if fraction != 0 {
            for digits in 1...17 {
                let candidate = String(format: "%.\(digits)f", fraction)
                // `%.Nf` of a value close to 1 can round up to "1.000"; such a candidate never
                // reads back to `t`, so a longer one is tried.
                guard candidate.hasPrefix("0."), let value = Double(candidate), whole + value == t else { continue }
                text += String(candidate.dropFirst(1))
                break
            }
        }
        return text + "Z"
    }

    /// The date `text` names (IS2, IS3), or nil.
    package static func parse(_ text: String) -> Date? {
        let chars = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= chars.count else { return nil }
            var value: Int64 = 0
            for i in range {
                guard chars[i] >= 48, chars[i] <= 57 else { return nil }
                value = value * 10 + Int64(chars[i] - 48)
            }
            return value
        }
        func at(_ i: Int, _ c: Character) -> Bool { i < chars.count && chars[i] == c.asciiValue! }
        guard chars.count >= 20, let year = number(0..<4), at(4, "-"), let month = number(5..<7), at(7, "-"),
            let day = number(8..<10), at(10, "T") || at(10, "t"), let hour = number(11..<13), at(13, ":"),
            let minute = number(14..<16), at(16, ":"), let second = number(17..<19),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 60
        else { return nil }
        var i = 19
        var fraction = 0.0
        if at(i, ".") {
            let start = i
            i += 1
            while i < chars.count, chars[i] >= 48, chars[i] <= 57 { i += 1 }
            guard i > start + 1, let value = Double("0" + String(decoding: chars[start..<i], as: UTF8.self)) else {
                return nil
            }
            fraction = value
        }
        var offset: Int64 = 0
        if at(i, "Z") || at(i, "z") {
            i += 1
        } else if at(i, "+") || at(i, "-") {
            guard let hours = number((i + 1)..<(i + 3)), at(i + 3, ":"), let minutes = number((i + 4)..<(i + 6)),
                hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (at(i, "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == chars.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let unix = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSinceReferenceDate: Double(unix - referenceOffset) + fraction)
    }

    /// `YYYY-MM-DDTHH:MM:SS` of `unix` seconds since 1970, UTC.
    private static func civil(_ unix: Int64) -> String {
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secondOfDay = unix - days * 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return String(
            format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld", year, month, day, secondOfDay / 3600,
            secondOfDay / 60 % 60, secondOfDay % 60)
    }

    /// Days from 1970-01-01 to the civil date (Howard Hinnant's days_from_civil).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
