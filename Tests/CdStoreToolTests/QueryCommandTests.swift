// `cdstore query`: predicates with arguments, sort, paging, projections, counts, every output
// format and its value forms, and the one-line errors with "did you mean".

import Foundation
import Testing

@Suite struct QueryCommandTests {
    static func query(_ arguments: [String], in dir: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        let path = dir.appendingPathComponent("sample.cdstore").path
        if !FileManager.default.fileExists(atPath: path) { try SampleStore.create(at: path) }
        let r = try Cdstore.run(["query", path] + arguments)
        return (r.status, r.stdout, r.stderr)
    }

    static func ids(_ ndjson: String) throws -> [String] {
        try ndjson.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["objectID"] as? String)
        }
    }

    @Test func predicateArgumentsAreNumbersWhenTheyLookLikeNumbers() throws {
        try Cdstore.withTempDir { dir in
            let r = try Self.query(
                ["Employee", "salary > %@", "100000", "--sort", "name", "--format", "ndjson"], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Self.ids(r.stdout) == ["Employee/1", "Employee/4", "Employee/2"])  // Ada, Alan, Grace
        }
    }

    /// Only decimal text is a number: `0x10` and `nan` stay strings, which a string attribute
    /// accepts (a number compared with `name` is a type error, exit 16).
    @Test(arguments: [
        ("salary > %@", "1.5e5", "0"), ("salary > %@", "149999.5", "1"), ("name == %@", "0x10", "0"),
        ("name == %@", "nan", "0"), ("name == %@", "Ada", "1"),
    ])
    func argumentsReadAsNumbersOnlyInDecimal(_ predicate: String, _ argument: String, _ expected: String) throws {
        try Cdstore.withTempDir { dir in
            let r = try Self.query(["Employee", "--count", predicate, argument], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout == expected + "\n")
        }
    }

    @Test func sortDescendingWithLimitAndOffset() throws {
        try Cdstore.withTempDir { dir in
            let r = try Self.query(
                ["Employee", "--sort", "-salary", "--limit", "2", "--offset", "1", "--format", "ndjson"], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Self.ids(r.stdout) == ["Employee/2", "Employee/4"])  // Grace 120000, Alan 110000
        }
    }

    @Test func objectIDArgumentsMatchRelationships() throws {
        try Cdstore.withTempDir { dir in
            let r = try Self.query(["Employee", "department == %@", "Department/2", "--format", "ndjson"], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Self.ids(r.stdout) == ["Employee/3", "Employee/4"])
        }
    }

    @Test func countPrintsOnlyTheNumber() throws {
        try Cdstore.withTempDir { dir in
            let count = try Self.query(["Employee", "--count", "active == YES"], in: dir).stdout
            #expect(count == "3\n")
            let json = try Self.query(["Employee", "--count", "--format", "json"], in: dir).stdout
            #expect(json == "{\"count\":4}\n")
        }
    }

    @Test func jsonWritesEveryValueForm() throws {
        try Cdstore.withTempDir { dir in
            let ada = try Self.query(["Employee", "name == %@", "Ada", "--format", "json"], in: dir)
            #expect(
                ada.stdout == """
                    [
                    {"objectID":"Employee/1","name":"Ada","salary":150000,"rating":4.5,"active":true,\
                    "hired":"2023-11-14T22:13:20.25Z","photo":"AQID/w==",\
                    "badge":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F",\
                    "department":"Department/1"}
                    ]

                    """)
            let departments = try Self.query(["Department", "--format", "json"], in: dir)
            let parsed = try #require(
                try JSONSerialization.jsonObject(with: Data(departments.stdout.utf8)) as? [[String: Any]])
            #expect(parsed.first?["budget"] as? String == "1234567.89")
            #expect(parsed.first?["employees"] as? [String] == ["Employee/1", "Employee/2"])
            #expect(parsed.last?["budget"] is NSNull)
        }
    }

    @Test func csvQuotesAndProjects() throws {
        try Cdstore.withTempDir { dir in
            let r = try Self.query(["Department", "--properties", "name,employees", "--format", "csv"], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                r.stdout == #"""
                    objectID,name,employees
                    Department/1,R&D,Employee/1 Employee/2
                    Department/2,"Sales, ""EMEA""",Employee/3 Employee/4

                    """#)
        }
    }

    @Test func tableIsAlignedWithoutEscapeCodesInAPipe() throws {
        try Cdstore.withTempDir { dir in
            let r = try Self.query(["Employee", "--properties", "name,salary", "--sort", "salary"], in: dir)
            #expect(
                r.stdout == """
                    objectID    name   salary
                    ----------  -----  ------
                    Employee/3  Linus   90000
                    Employee/4  Alan   110000
                    Employee/2  Grace  120000
                    Employee/1  Ada    150000

                    """)
        }
    }

    @Test func misspelledNamesSuggestTheClosestAndExitSixteen() throws {
        try Cdstore.withTempDir { dir in
            let entity = try Self.query(["Employe"], in: dir)
            #expect(entity.status == 16)
            #expect(entity.stderr == "cdstore: no entity named \"Employe\" (did you mean \"Employee\"?)\n")
            let property = try Self.query(["Employee", "--properties", "name,salry"], in: dir)
            #expect(property.status == 16)
            #expect(property.stderr == "cdstore: no property named \"salry\" in Employee (did you mean \"salary\"?)\n")
            let sort = try Self.query(["Employee", "--sort", "-nmae"], in: dir)
            #expect(sort.status == 16)
            #expect(sort.stderr.contains("did you mean \"name\""))
            let far = try Self.query(["Zebra"], in: dir)
            #expect(far.stderr == "cdstore: no entity named \"Zebra\" (known: Department, Employee)\n")
        }
    }

    @Test func badPredicatesAreOneLineUsageErrors() throws {
        try Cdstore.withTempDir { dir in
            for predicate in ["salary >", "nope == 1", "salary > %@"] {
                let r = try Self.query(["Employee", predicate], in: dir)
                #expect(r.status == 16, "\(predicate): \(r.stderr)")
                #expect(r.stderr.hasPrefix("cdstore: ") && r.stderr.filter { $0 == "\n" }.count == 1, "\(r.stderr)")
                #expect(r.stdout.isEmpty)
            }
        }
    }
}
