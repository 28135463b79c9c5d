import CLV2UI
import TactusEngine
import TactusModel
import TactusEditorModel

// X11's buttons, modifier masks and key symbols as the editor model names
// them: the UI only translates, the model decides what a key does.

extension MouseButton {
    /// Buttons 1-3; the wheel (4, 5) and the others are not buttons here.
    init?(x11 button: UInt32) {
        switch button {
        case 1: self = .left
        case 2: self = .middle
        case 3: self = .right
        default: return nil
        }
    }
}

extension EditorModifiers {
    init(x11 state: UInt32) {
        self = []
        if state & UInt32(ShiftMask) != 0 { insert(.shift) }
        if state & UInt32(ControlMask) != 0 { insert(.control) }
        if state & UInt32(Mod1Mask) != 0 { insert(.alt) }
    }
}

extension EditorKey {
    /// A key symbol (as `XLookupKeysym` with the shift level the modifiers
    /// chose) and the modifiers; nil for keys the editor has no use for.
    init?(keysym: KeySym, modifiers: EditorModifiers) {
        let name: Name
        switch Int32(truncatingIfNeeded: keysym) {
        case XK_Delete, XK_KP_Delete: name = .delete
        case XK_BackSpace: name = .backspace
        case XK_Tab, XK_ISO_Left_Tab: name = .tab
        case XK_Escape: name = .escape
        case XK_Return, XK_KP_Enter: name = .enter
        case XK_Left, XK_KP_Left: name = .left
        case XK_Right, XK_KP_Right: name = .right
        case XK_Up, XK_KP_Up: name = .up
        case XK_Down, XK_KP_Down: name = .down
        case XK_Page_Up, XK_KP_Page_Up: name = .pageUp
        case XK_Page_Down, XK_KP_Page_Down: name = .pageDown
        case XK_Home, XK_KP_Home: name = .home
        case XK_End, XK_KP_End: name = .end
        case XK_KP_Add: name = .character(UInt8(ascii: "+"))
        case XK_KP_Subtract: name = .character(UInt8(ascii: "-"))
        default:
            // Latin-1 key symbols are their characters.
            guard keysym >= 0x20, keysym < 0x7F else { return nil }
            name = .character(UInt8(keysym))
        }
        self.init(name, modifiers: modifiers)
    }
}
