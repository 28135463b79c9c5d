import TactusEngine
import TactusInProcessHost
import TactusModel

/// Fuzz target 2: the pattern text parser, on any bytes.
///
/// It must never crash; a rejection must carry a line inside the text (or
/// one past its end, for a missing `length`) and a reason, formatted as
/// `line N: reason`; an accepted pattern must pass the same rules built in
/// code, round-trip through the writer (same pattern, and the writer's text
/// is a fixed point), and make a snapshot with its notes in start order.
public enum PatternParserTarget {
    public static func check(_ data: UnsafeRawBufferPointer) -> Violations {
        var violations = Violations()
        let bytes = Array(data)
        let lines = bytes.reduce(1) { $1 == 10 ? $0 + 1 : $0 }
        let pattern: Pattern
        do {
            pattern = try PatternParser.parse(bytes: bytes)
        } catch {
            if error.line < 1 || error.line > lines + 1 {
                violations.add("rejected at line \(error.line), outside lines 1-\(lines + 1): \(error.reasonText)")
            }
            if error.reasonText.isEmpty { violations.add("a rejection without a reason at line \(error.line)") }
            if error.message != "line \(error.line): \(error.reasonText)" { violations.add("a message without its line: \(error.message)") }
            return violations
        }
        if let problem = pattern.validationError() {
            violations.add("accepted a pattern that breaks the rules: \(problem.message)")
        }
        let text = PatternWriter.text(for: pattern)
        do {
            let again = try PatternParser.parse(text)
            if again != pattern { violations.add("the writer's text reads back as another pattern:\n\(text)") }
            if PatternWriter.text(for: again) != text { violations.add("the writer's text is not a fixed point:\n\(text)") }
        } catch {
            violations.add("the writer's text does not parse (\(error.message)):\n\(text)")
        }
        let snapshot = PatternSnapshot.make(pattern, text: bytes)
        defer { snapshot.destroy() }
        // Version 2 plays the lanes' common cycle: each note once per pass of its lane in it (contract §7.1).
        var problem: LaneCycle.Problem?
        let cycleCount = LaneCycle.expand(pattern, problem: &problem).count
        if problem != nil { violations.add("the lanes of an accepted pattern break a limit: \(problem!.reason)") }
        if snapshot.noteCount != cycleCount { violations.add("the snapshot has \(snapshot.noteCount) notes, not \(cycleCount)") }
        if pattern.version == 1 && cycleCount != pattern.notes.count { violations.add("a version-1 pattern has \(cycleCount) cycle notes, not \(pattern.notes.count)") }
        // Contract §10: the snapshot holds every controller event of the cycle, in beat order.
        let events = ControllerCycle.eventCount(pattern)
        if pattern.usesControllers && snapshot.controlCount != events {
            violations.add("the snapshot has \(snapshot.controlCount) controller events, not \(events)")
        }
        if snapshot.controlCount > 1 {
            for i in 1..<snapshot.controlCount where snapshot.control(i).beat < snapshot.control(i - 1).beat {
                violations.add("the snapshot's controller events are not in beat order at \(i)")
                break
            }
        }
        if !snapshot.text.elementsEqual(bytes) { violations.add("the snapshot does not keep the text it was made from") }
        if snapshot.noteCount > 1 {
            for i in 1..<snapshot.noteCount where snapshot.note(i).start < snapshot.note(i - 1).start {
                violations.add("the snapshot's notes are not in start order at \(i)")
                break
            }
        }
        return violations
    }

    public static func fuzz(_ data: UnsafeRawBufferPointer) {
        check(data).trapIfAny("pattern parser")
    }
}
