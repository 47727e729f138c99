import Chronicle

// 004_… "Define a Class Projection", as written in the seed.
final class PersonProjection: Projection<Person> {
    @Projected(\Person.firstName) var firstName // Passthrough from original object
    @Projected(\Person.address?.city) var homeCity // Rename and access embedded object property through keypath
    @Projected(\Person.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String> // Collection mapping
}
extension PersonProjection: @unchecked Sendable {}

// 001_… "Define a Projection" (DoggoDB's Profile).
final class Profile: Projection<Employee> {
    @Projected(\Employee.firstName) var firstName // Passthrough from original object
    @Projected(\Employee.lastName.localizedCapitalized.first) var lastNameInitial // Access and transform the original property
    @Projected(\Employee.personId) var personId
    @Projected(\Employee.businessUnit) var businessUnit
    @Projected(\Employee.profileImageUrl) var profileImageUrl
    @Projected(\Employee.dogs) var dogs
}
extension Profile: @unchecked Sendable {}
