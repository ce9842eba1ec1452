// Test data for the typed-query tests: the README's Department and Employee (declared in
// ReadmeExamplesTests.swift) with three departments and seven employees, chosen so that every
// line of the typed-query example in docs/QUERIES.md has a small, known answer.

import Foundation
import Testing
@testable import Cadmium

/// Fresh in-memory company store: R&D (Ann, Axel, Bob, Cid), Sales (Dan, Eve), Ops (nobody),
/// and Abe with no department.
func initTypedCompany() throws {
    try initCompany()
    try background {
        try Cd.transactAndWait {
            var departments: [String: Department] = [:]
            for name in ["R&D", "Sales", "Ops"] {
                let d = try Cd.create(Department.self)
                d.name = name
                departments[name] = d
            }
            let people: [(String, Int64, String?, String?)] = [
                ("Ann", 150_000, "ann@rd.example", "R&D"), ("Axel", 120_000, nil, "R&D"),
                ("Bob", 95_000, "bob@rd.example", "R&D"), ("Cid", 60_000, "cid@rd.example", "R&D"),
                ("Dan", 110_000, "dan@sales.example", "Sales"), ("Eve", 80_000, nil, "Sales"),
                ("Abe", 40_000, "abe@example", nil),
            ]
            for (name, salary, email, department) in people {
                let e = try Cd.create(Employee.self)
                e.name = name
                e.salary = salary
                e.email = email
                e.department = department.flatMap { departments[$0] }
            }
        }
    }
}
