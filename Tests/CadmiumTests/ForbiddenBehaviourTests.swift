// Cadmium's own test suite, forbidden behaviour (its tests 12–16): each misuse is reported through
// `Cd.misuseHandler`, and the throwing calls throw the `CdMisuse`.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct ForbiddenBehaviour {
        @MainActor @Test func forbidModificationOnMainThread() throws {
            try initCd()
            let c = try #require(try Cd.objects(TestItem.self).filter("name = %@", "C").fetchOne())
            #expect(c.id == 3)
            expectMisuse(.j1) { c.name = "changed on main" }
            #expect(c.name == "C", "the write did nothing")
        }

        @Test func forbidModificationInOtherTx() throws {
            try initCd()
            try background {
                let bob = try Cd.transactAndWait { () -> TestItem in
                    let bob = try Cd.create(TestItem.self)
                    bob.name = "Bob"
                    return bob
                }
                Cd.transactAndWait {
                    Cd.cancelImplicitCommit()
                    expectMisuse(.j4) { bob.name = "Robert" }
                }
            }
        }

        @Test func forbidReusingTransient() throws {
            try initCd()
            try background {
                let transient = try Cd.transactAndWait { try Cd.create(TestItem.self, transient: true) }
                Cd.transactAndWait {
                    expectMisuse(.g3) { _ = Cd.useInCurrentContext(transient) }
                }
            }
        }

        @MainActor @Test func forbidCreateMain() throws {
            try initCd()
            expectMisuse(.b2) { _ = try Cd.create(TestItem.self) }
            expectMisuse(.b2) { _ = try Cd.create(TestItem.self, count: 2) }
        }

        @MainActor @Test func forbidDeleteMain() throws {
            try initCd()
            let a = try #require(try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne())
            expectMisuse(.e1) { Cd.delete(a) }
            expectMisuse(.e1) { Cd.delete([a]) }
            #expect(try Cd.objects(TestItem.self).count() == 5)
        }
    }
}
