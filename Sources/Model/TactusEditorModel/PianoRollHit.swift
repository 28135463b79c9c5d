import TactusEngine
import TactusModel

/// What lies under a point of the piano roll (`PianoRollGeometry.hitTest`).
public enum PianoRollHit: Equatable, Sendable {
    /// Nothing that responds (a corner, outside the view, beyond key 0 or 127).
    case none
    /// A note of the lane shown, and which part of it.
    case note(id: UInt32, part: NotePart)
    /// The loop marker in the ruler: dragging it sets the lane's length.
    case loopMarker
    /// An empty place of the grid: the beat under the pointer (not snapped)
    /// and the key of the row.
    case grid(beat: Double, key: UInt8)
    /// A key of the keyboard strip.
    case keyboard(key: UInt8)
    /// The ruler, away from the loop marker.
    case ruler(beat: Double)
    /// The velocity strip: the note whose velocity stem is under the
    /// pointer, nil between stems.
    case velocity(noteID: UInt32?)
    /// The controller strip: the beat and the value under the pointer (not
    /// snapped) for the controller chosen, and the index in
    /// `EditorDocument.controllers` of its point there (nil between points).
    case controller(beat: Double, value: Int16, point: Int?)
    /// The controller strip's name, left of it: opens the menu of controllers.
    case controllerName
    /// An item of the open menu of controllers (`PianoRollEditor.controllerMenuItems`).
    case controllerMenuItem(Int)
    /// The switch left of the velocity strip that shows or hides the controller strip.
    case controllerStripSwitch
    /// The stacked view: a lane's header (its name), left of its band.
    case laneHeader(lane: Int)
    /// The stacked view: a lane's mute button, in its header.
    case laneMute(lane: Int)
    /// The scrollbar at the bottom: the beat its track stands for at the
    /// pointer, and whether the pointer is on the thumb (the part in view).
    case scrollbar(beat: Double, onThumb: Bool)
}

/// Which part of a note a point is on: dragging the body moves the note,
/// dragging an edge resizes it.
public enum NotePart: Equatable, Sendable {
    case body
    case startEdge
    case endEdge
}
