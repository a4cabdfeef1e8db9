/// Which date of an entry its age is measured from (`cache.expire_by:`).
package enum ExpiryClock: String, Sendable, CaseIterable, Codable {
    case access, modification, creation
}
