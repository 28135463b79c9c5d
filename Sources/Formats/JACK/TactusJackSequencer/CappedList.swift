/// Lists in refusals, cut to a few items and a count, so that a refusal about
/// 65,536 notes is one short line, not 400 KB of note numbers.
public enum CappedList {
    /// How many items a refusal names before it counts the rest.
    public static let shownItems = 5

    /// `1, 2, 3, 4, 5 and 65531 more`.
    public static func inline(_ items: [String], limit: Int = shownItems) -> String {
        guard items.count > limit else {
            return items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
        }
        return items.prefix(limit).joined(separator: ", ") + " and \(items.count - limit) more"
    }

    /// One item a line, the rest counted on a last line: `... and 12 more actions`.
    public static func lines(_ items: [String], noun: String, limit: Int = shownItems) -> String {
        guard items.count > limit else { return items.joined(separator: "\n") }
        return (items.prefix(limit) + ["... and \(items.count - limit) \(noun)\(items.count - limit == 1 ? "" : "s")"]).joined(separator: "\n")
    }
}
