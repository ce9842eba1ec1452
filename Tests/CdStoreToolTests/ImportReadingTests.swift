// The pieces `cdstore import` reads with: dates in ISO 8601 that read back to the same instant,
// and the streaming CSV reader's records and line numbers.

import Foundation
import Testing

import CdStoreCommands

@Suite struct ImportReadingTests {
    static let instants: [Double] = [
        0, 0.5, -0.5, 123_456_789.123_456_789, -3_000_000_000.75, 1e-9, 815_000_000.999_999_9, 0.1, -978_307_200,
        Date(timeIntervalSince1970: 1_700_000_000.25).timeIntervalSinceReferenceDate,
    ]

    /// IS1: formatting then parsing gives the same Double, and whole seconds have no fraction.
    @Test(arguments: instants) func datesReadBackExactly(_ seconds: Double) throws {
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        let text = ISO8601Instant.format(date)
        let parsed = try #require(ISO8601Instant.parse(text), "\(text) does not parse")
        #expect(parsed.timeIntervalSinceReferenceDate == seconds, "\(text)")
        #expect(text.contains(".") == (seconds.rounded(.down) != seconds))
    }

    @Test func datesAreWrittenInUTC() {
        #expect(ISO8601Instant.format(Date(timeIntervalSince1970: 1_700_000_000.25)) == "2023-11-14T22:13:20.25Z")
        #expect(ISO8601Instant.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(ISO8601Instant.format(Date(timeIntervalSince1970: -86_401)) == "1969-12-30T23:59:59Z")
    }

    @Test func offsetsAndBadDates() {
        #expect(
            ISO8601Instant.parse("2023-11-14T23:13:20.25+01:00")
                == Date(timeIntervalSince1970: 1_700_000_000.25))
        for bad in [
            "2023-11-14", "2023-02-29T00:00:00Z", "2023-11-14T24:00:00Z", "2023-11-14T22:13:20",
            "2023-11-14T22:13:20.Z",
            "2023-11-14T22:13:20Zx", "２０２３-11-14T22:13:20Z", "",
        ] {
            #expect(ISO8601Instant.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func csvRecordsStartOnTheirLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csv-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = "a,b\r\n\"x\ny\",\"q\"\"q\"\n\n,last\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        var reader = try #require(CSVReader(path: path))
        defer { reader.close() }
        var records: [(Int, [String])] = []
        while let record = try reader.next() { records.append(record) }
        #expect(records.map(\.0) == [1, 2, 5])
        #expect(records.map(\.1) == [["a", "b"], ["x\ny", "q\"q"], ["", "last"]])
    }

    @Test(arguments: ["a\"b,c\n", "\"a\"b,c\n", "\"abc\n"]) func malformedCSVNamesItsLine(_ text: String) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csv-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(("h\n" + text).utf8).write(to: URL(fileURLWithPath: path))
        var reader = try #require(CSVReader(path: path))
        defer { reader.close() }
        _ = try reader.next()
        #expect(throws: CSVReader.Malformed.self) { _ = try reader.next() }
    }
}
