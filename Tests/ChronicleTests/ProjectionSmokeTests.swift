import Foundation
import Testing
@testable import Chronicle

@Suite("Projection basics")
struct ProjectionSmokeTests {
    @Test func passthroughRenameAndTransformReadTheBase() throws {
        let store = try scratchStore()
        let employee = Employee()
        employee.firstName = "Jason"
        employee.lastName = "bourne"
        try store.write { store.add(employee) }
        let profile = try #require(store.objects(Profile.self).first(where: { $0.firstName == "Jason" }))
        #expect(profile.lastNameInitial == "B")
        try store.write { profile.firstName = "David" }
        #expect(employee.firstName == "David")
    }

    @Test func metadataRecordsDependencySets() {
        let metadata = ProjectionMetadata.of(PersonProjection.self)
        #expect(metadata.properties.map(\.name) == ["firstName", "homeCity", "firstFriendsName"])
        #expect(metadata.property(named: "homeCity")?.recorded.dependencies == [["address"], ["address", "city"]])
        #expect(metadata.property(named: "firstFriendsName")?.recorded.dependencies == [["friends"], ["friends", "firstName"]])
        let profile = ProjectionMetadata.of(Profile.self)
        #expect(profile.property(named: "lastNameInitial")?.recorded.isDirect == false)
        #expect(profile.property(named: "personId")?.recorded.isDirect == true)
    }

    @Test func projectedKeyPathsMapBackToBasePaths() throws {
        #expect(try KeyPathMapping.record(\PersonProjection.homeCity).path == ["address", "city"])
        #expect(try KeyPathMapping.record(\PersonProjection.homeCity).isDirect)
    }
}
