import TactusEngine
import TactusModel

/// One controller of a lane as the controller strip shows it: what it
/// drives (`cc N`, bend, pressure, program) on which channel (1-16).
public struct ControllerChoice: Equatable, Sendable {
    public var kind: ControllerKind
    public var channel: UInt8

    public init(kind: ControllerKind, channel: UInt8) {
        self.kind = kind
        self.channel = channel
    }

    /// `cc 74`, `bend`, ... with ` ch 2` when not on the lane's channel.
    public func label(laneChannel: UInt8) -> [UInt8] {
        Array((kind.name + (channel == laneChannel ? "" : " ch \(channel)")).utf8)
    }

    /// Whether `point` is one of this controller's.
    public func owns(_ point: ControllerPoint) -> Bool { point.kind == kind && point.channel == channel }
}

/// An item of the strip's menu: a controller the lane uses, or one to add.
public struct ControllerMenuItem: Equatable, Sendable {
    public var choice: ControllerChoice
    /// True for "add": the lane has no point of it yet.
    public var adds: Bool
    /// What the menu shows.
    public var label: [UInt8]
}

/// The controller strip under the piano roll (issue 30, contract §10): the
/// points of one controller of the lane edited, the values its ramps send
/// drawn as the steps the engine emits (`ControllerCycle.laneSteps`).
///
/// - Left click on empty strip: adds a point at the snap grid's nearest
///   line (1/96 beat with the grid off) with the value under the pointer;
///   the drag that follows moves it. On a point: selects it and drags it
///   (its beat on the grid, its value).
/// - Right click on a point: deletes it (and every point the drag passes).
/// - `r`: turns `ramp` on or off on the selected point (never a program).
///   Delete with no note selected deletes the selected point.
/// - The name left of the strip opens a menu: the controllers the lane uses
///   (its points' kinds and channels, text order) and ones to add (common
///   controllers, bend, pressure, program, or `cc` and a number typed while
///   the menu is open, then Return).
/// - `c`, or the `CC` switch left of the velocity strip, shows or hides the
///   strip (it shows by itself for a pattern with controller points).
///
/// Every edit is one undo step and is committed as a note edit is (the
/// document's text, with only the point's line changed). UI thread.
extension PianoRollEditor {
    /// The strip's height when shown (logical pixels).
    public static var controllerStripHeight: Double { 72 }
    /// How near (pixels) a press must be to a point to grab it.
    static var pointGrabPixels: Double { 6 }
    /// The height of one item of the menu.
    public static var menuItemHeight: Double { 15 }
    public static var menuWidth: Double { 150 }
    /// The controllers the menu offers to add, after those the lane uses.
    static var commonControllers: [ControllerKind] {
        [.control(1), .control(7), .control(10), .control(11), .control(64), .control(71), .control(74), .bend, .pressure, .program]
    }

    /// Whether the strip is shown: as the person set it (`c`), else when the pattern has controller points.
    public var showsControllerStrip: Bool { controllerStripSetting ?? !document.controllers.isEmpty }

    /// The controllers lane `lane` uses, in the text order of their first points.
    public func controllers(ofLane lane: Int) -> [ControllerChoice] {
        var out: [ControllerChoice] = []
        for p in document.controllers where p.lane == lane {
            let c = ControllerChoice(kind: p.kind, channel: p.channel)
            if !out.contains(c) { out.append(c) }
        }
        return out
    }

    /// The controller the strip shows: the one chosen in the menu, else the
    /// lane's first; nil when the lane has none and none was chosen.
    public var chosenController: ControllerChoice? {
        if let c = controllerChoice { return c }
        return controllers(ofLane: laneIndex).first
    }

    /// The menu's items (when open): the lane's controllers, then those to add,
    /// then `cc N` for the number typed.
    public var controllerMenuItems: [ControllerMenuItem] {
        let channel = document.defaultChannel(ofLane: laneIndex)
        let used = controllers(ofLane: laneIndex)
        var items = used.map { ControllerMenuItem(choice: $0, adds: false, label: $0.label(laneChannel: channel)) }
        for kind in PianoRollEditor.commonControllers {
            let c = ControllerChoice(kind: kind, channel: channel)
            if !used.contains(c) { items.append(ControllerMenuItem(choice: c, adds: true, label: Array("add \(kind.name)".utf8))) }
        }
        let typed = controllerMenuDigits.isEmpty ? "add cc ... (type it)" : "add cc \(String(decoding: controllerMenuDigits, as: UTF8.self))"
        items.append(ControllerMenuItem(choice: ControllerChoice(kind: .control(typedControllerNumber ?? 0), channel: channel), adds: true, label: Array(typed.utf8)))
        return items
    }

    /// The menu's top-left corner: it opens upward from the strip's name.
    public var controllerMenuOrigin: (x: Double, y: Double) {
        let h = Double(controllerMenuItems.count) * PianoRollEditor.menuItemHeight
        return (2, Swift.max(geometry.gridTop, geometry.controllerTop - h))
    }

    /// The number typed in the open menu, when it is a controller 0-119.
    var typedControllerNumber: UInt8? {
        guard !controllerMenuDigits.isEmpty, controllerMenuDigits.count <= 3 else { return nil }
        var v = 0
        for d in controllerMenuDigits { v = v * 10 + Int(d - 0x30) }
        return v <= 119 ? UInt8(v) : nil
    }

    /// What the chosen controller sends in one pass of the lane (the engine's
    /// own ramp computation), for drawing; empty without one.
    public func chosenControllerSteps() -> [ControllerCycle.Step] {
        guard let c = chosenController else { return [] }
        return ControllerCycle.laneSteps(document.pattern(), lane: laneIndex, kind: c.kind, channel: c.channel)
    }

    /// The indices in `document.controllers` of the chosen controller's points.
    public var chosenPoints: [Int] {
        guard let c = chosenController else { return [] }
        return document.controllers.indices.filter { document.controllers[$0].lane == laneIndex && c.owns(document.controllers[$0]) }
    }

    // MARK: Hit testing

    /// What the strip (and its menu) holds at (x, y), nil when that is elsewhere.
    func controllerStripHit(x: Double, y: Double) -> PianoRollHit? {
        let g = geometry
        if controllerMenuOpen {
            let o = controllerMenuOrigin
            let items = controllerMenuItems.count
            if x >= o.x, x < o.x + PianoRollEditor.menuWidth, y >= o.y, y < o.y + Double(items) * PianoRollEditor.menuItemHeight {
                return .controllerMenuItem(Int((y - o.y) / PianoRollEditor.menuItemHeight))
            }
        }
        if x < g.gridLeft, y >= g.gridBottom, y < g.controllerTop, g.controllerTop - g.gridBottom >= 14 {
            return y < g.gridBottom + 16 ? .controllerStripSwitch : nil
        }
        guard g.controllerHeight > 0, y >= g.controllerTop, y < g.scrollbarTop else { return nil }
        if x < g.gridLeft { return .controllerName }
        guard let c = chosenController else { return .controller(beat: g.beat(forX: x), value: 0, point: nil) }
        var best: Int?
        var bestDistance = PianoRollEditor.pointGrabPixels
        for i in chosenPoints {
            let p = document.controllers[i]
            let dx = g.x(forBeat: p.start.approximateValue) - x
            let dy = g.y(forControllerValue: p.value, of: c.kind) - y
            let d = (dx * dx + dy * dy).squareRoot()
            if d <= bestDistance {
                best = i
                bestDistance = d
            }
        }
        return .controller(beat: g.beat(forX: x), value: g.controllerValue(forY: y, of: c.kind), point: best)
    }

    // MARK: Showing

    /// Shows or hides the strip (`c`, the `CC` switch).
    public mutating func setShowsControllerStrip(_ on: Bool) -> EditorEffects {
        controllerStripSetting = on
        controllerMenuOpen = false
        applyControllerStrip()
        setStackScroll(stackScroll)
        return .redraw
    }

    /// The geometry's strip as `showsControllerStrip` says.
    mutating func applyControllerStrip() {
        geometry.controllerHeight = showsControllerStrip ? PianoRollEditor.controllerStripHeight : 0
    }

    /// Chooses the controller the strip shows (the menu's item `item`).
    public mutating func chooseController(item: Int) -> EditorEffects {
        let items = controllerMenuItems
        controllerMenuOpen = false
        controllerMenuDigits = []
        guard items.indices.contains(item) else { return .redraw }
        if items[item].label.last == UInt8(ascii: ")") { return .redraw }
        controllerChoice = items[item].choice
        selectedPoint = nil
        return .redraw
    }

    /// A key while the menu is open: digits type a controller number,
    /// Return chooses it, BackSpace takes a digit back, Escape closes.
    mutating func controllerMenuKey(_ k: EditorKey) -> EditorEffects {
        switch k.name {
        case .character(let c) where c >= 0x30 && c <= 0x39:
            if controllerMenuDigits.count < 3 { controllerMenuDigits.append(c) }
            return .redraw
        case .backspace:
            if !controllerMenuDigits.isEmpty { controllerMenuDigits.removeLast() }
            return .redraw
        case .enter:
            guard typedControllerNumber != nil else { return .redraw }
            return chooseController(item: controllerMenuItems.count - 1)
        default:
            controllerMenuOpen = false
            controllerMenuDigits = []
            return .redraw
        }
    }

    // MARK: Editing

    /// A left press in the strip: grabs the point there, or adds one.
    mutating func pointPress(beat: Double, value: Int16, point: Int?) -> EditorEffects {
        controllerStripSetting = true
        if let i = point {
            selectedPoint = i
            gesture = .point(PointDrag(index: i, pressX: pointerX, pressY: pointerY))
            return .redraw
        }
        guard let c = chosenController else {
            controllerMenuOpen = true
            return .redraw
        }
        guard let start = pointBeat(beat) else { return .redraw }
        if let same = chosenPoints.first(where: { document.controllers[$0].start == start }) {
            selectedPoint = same
            gesture = .point(PointDrag(index: same, pressX: pointerX, pressY: pointerY, started: true))
            return movePoint(same, beat: beat, value: value)
        }
        let point = ControllerPoint(start: start, kind: c.kind, value: value, channel: c.channel, ramp: false, lane: laneIndex)
        guard case .success(let i) = document.addController(point) else { return .redraw }
        controllerChoice = c
        selectedPoint = i
        // A point just drawn follows the pointer at once, as a note being drawn does.
        gesture = .point(PointDrag(index: i, pressX: pointerX, pressY: pointerY, started: true))
        return .redraw
    }

    /// The beat a point lands on for a pointer at `beat`: the snap grid's
    /// nearest line (1/96 beat with it off), within the lane's loop; nil past its end.
    func pointBeat(_ beat: Double) -> BeatRational? {
        var start = snap.nearest(Swift.max(beat, 0))
        if start < .zero { start = .zero }
        return start < lane.length ? start : nil
    }

    /// A drag of point `index` to the pointer.
    mutating func movePoint(_ index: Int, beat: Double, value: Int16) -> EditorEffects {
        guard document.controllers.indices.contains(index) else { return .none }
        let start = pointBeat(beat) ?? document.controllers[index].start
        guard case .success = document.moveController(index, start: start, value: value) else { return .none }
        return .redraw
    }

    /// Deletes point `index` (a right press, or the drag after one).
    mutating func erasePoint(_ index: Int?) -> EditorEffects {
        guard let i = index, document.removeController(i) else { return .none }
        if let s = selectedPoint { selectedPoint = s == i ? nil : (s > i ? s - 1 : s) }
        return .redraw
    }

    /// `r`: the selected point's `ramp` on or off, one undo step.
    mutating func toggleRamp() -> EditorEffects {
        guard let i = selectedPoint, document.controllers.indices.contains(i) else { return .none }
        let before = snapshot()
        guard case .success = document.setControllerRamp(i, !document.controllers[i].ramp) else { return .none }
        history.record(before)
        return EditorEffects(redraw: true, commit: true)
    }

    /// Delete with no note selected: the selected point goes, one undo step.
    mutating func deleteSelectedPoint() -> EditorEffects {
        guard let i = selectedPoint else { return .none }
        let before = snapshot()
        guard document.removeController(i) else { return .none }
        selectedPoint = nil
        history.record(before)
        return EditorEffects(redraw: true, commit: true)
    }
}
