/// `count` and its noun, singular for one: "1 URL", "3 URLs", "1 problem". The plural is the noun with
/// an "s" unless given.
package func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
    "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
}
