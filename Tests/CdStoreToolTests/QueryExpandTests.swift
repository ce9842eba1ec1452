// `cdstore query --expand`: a to-one shown as its target's properties, nested in json and ndjson,
// as `name.property` columns in csv and tables; anything but a stored to-one is refused.

import Foundation
import Testing

@Suite struct QueryExpandTests {
    @Test func jsonNestsTheTarget() throws {
        try Cdstore.withTempDir { dir in
            let r = try QueryCommandTests.query(
                [
                    "Employee", "--sort", "name", "--expand", "department", "--format", "ndjson",
                    "--properties", "name,department",
                ],
                in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 4)
            #expect(
                lines.first
                    == #"{"objectID":"Employee/1","name":"Ada","department":{"objectID":"Department/1","name":"R&D","#
                    + #""budget":"1234567.89","employees":["Employee/1","Employee/2"]}}"#)
        }
    }

    @Test func csvAddsColumnsAfterTheID() throws {
        try Cdstore.withTempDir { dir in
            let r = try QueryCommandTests.query(
                [
                    "Employee", "--sort", "name", "--limit", "2", "--expand", "department", "--format", "csv",
                    "--properties", "name,department",
                ],
                in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                r.stdout == #"""
                    objectID,name,department,department.name,department.budget,department.employees
                    Employee/1,Ada,Department/1,R&D,1234567.89,Employee/1 Employee/2
                    Employee/4,Alan,Department/2,"Sales, ""EMEA""",,Employee/3 Employee/4

                    """#)
        }
    }

    @Test(arguments: [
        ("salary", "--expand salary: Employee.salary is not a to-one relationship"),
        ("departmnt", "--expand departmnt: no to-one named \"departmnt\" in Employee (did you mean \"department\"?)"),
    ])
    func onlyStoredToOnesExpand(_ name: String, _ message: String) throws {
        try Cdstore.withTempDir { dir in
            let r = try QueryCommandTests.query(["Employee", "--expand", name], in: dir)
            #expect(r.status == 16)
            #expect(r.stderr == "cdstore: \(message)\n")
        }
    }
}
