import CLV2
import CLV2UI
import LV2Atoms
import TactusEngine
import TactusModel
import TactusEditorModel

// The LV2 UI entry points, forwarding to `EditorWindow`. The descriptor and
// the idle interface that point to them are constant tables in C
// (Sources/CLV2UI/descriptor.c). Public, so that Embedded Swift emits them
// although only C refers to them.

@_cdecl("tactus_editor_instantiate")
public func instantiate(
    _ descriptor: UnsafePointer<LV2UI_Descriptor>?, _ pluginURI: UnsafePointer<CChar>?,
    _ bundlePath: UnsafePointer<CChar>?, _ write: LV2UI_Write_Function?, _ controller: LV2UI_Controller?,
    _ widget: UnsafeMutablePointer<LV2UI_Widget?>?, _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?
) -> LV2UI_Handle? {
    var map: UnsafePointer<LV2_URID_Map>? = nil
    var parent: UnsafeMutableRawPointer? = nil
    var resize: UnsafePointer<LV2UI_Resize>? = nil
    var options: UnsafePointer<LV2_Options_Option>? = nil
    if let features {
        var i = 0
        while let feature = features[i] {
            if strcmp(feature.pointee.URI, tactus_uri_urid_map) == 0 {
                map = UnsafePointer(feature.pointee.data?.assumingMemoryBound(to: LV2_URID_Map.self))
            } else if strcmp(feature.pointee.URI, tactus_uri_ui_parent) == 0 {
                parent = feature.pointee.data
            } else if strcmp(feature.pointee.URI, tactus_uri_ui_resize) == 0 {
                resize = UnsafePointer(feature.pointee.data?.assumingMemoryBound(to: LV2UI_Resize.self))
            } else if strcmp(feature.pointee.URI, tactus_uri_options_options) == 0 {
                options = UnsafePointer(feature.pointee.data?.assumingMemoryBound(to: LV2_Options_Option.self))
            }
            i += 1
        }
    }
    guard let map, let write, let widget else { return nil }
    let scale = DisplayScale(hostValue: options.flatMap { scaleFactor(in: $0, map: map) })
    guard let editor = EditorWindow.open(parent: parent.map { tactus_ui_window_from_parent($0) }, scale: scale,
        link: PluginLink(uris: URIDTable(map), write: write, controller: controller))
    else { return nil }
    if let resize, let request = resize.pointee.ui_resize { _ = request(resize.pointee.handle, editor.width, editor.height) }
    widget.pointee = tactus_ui_widget_from_window(editor.window)
    return LV2UI_Handle(Unmanaged.passRetained(editor).toOpaque())
}

extension EditorWindow {
    /// A new editor in a window of its own, a child of `parent` (the root
    /// window when nil), mapped, at its initial size, having asked the plugin
    /// for its pattern: the LV2 UI's instantiate and the CLAP plugin's gui
    /// (`tactus_editor_embed`) open it alike. Nil when there is no X display.
    static func open(parent: Window?, scale: DisplayScale, link: PluginLink) -> EditorWindow? {
        // One X connection per editor: two editors in one host never share one.
        guard let display = XOpenDisplay(nil) else { return nil }
        let screen = XDefaultScreen(display)
        let parentWindow = parent ?? XDefaultRootWindow(display)
        let width = scale.device(EditorWindow.initialWidth), height = scale.device(EditorWindow.initialHeight)
        let window = XCreateSimpleWindow(display, parentWindow, 0, 0, UInt32(width), UInt32(height), 0, 0, 0)
        var hints = XSizeHints()
        hints.flags = Int(PMinSize | PBaseSize)
        hints.min_width = scale.device(EditorWindow.minimumWidth)
        hints.min_height = scale.device(EditorWindow.minimumHeight)
        hints.base_width = width
        hints.base_height = height
        XSetWMNormalHints(display, window, &hints)
        // A name, so that tools (and the tests' xdotool) can find the editor's own window.
        XStoreName(display, window, "Tactus pattern editor")
        XSelectInput(
            display, window,
            Int(ExposureMask | ButtonPressMask | ButtonReleaseMask | PointerMotionMask | Button1MotionMask | Button2MotionMask | Button3MotionMask
                | KeyPressMask | StructureNotifyMask | FocusChangeMask))
        guard let surface = cairo_xlib_surface_create(display, window, XDefaultVisual(display, screen), width, height) else {
            XDestroyWindow(display, window)
            XCloseDisplay(display)
            return nil
        }
        XMapWindow(display, window)
        XFlush(display)
        let editor = EditorWindow(display: display, window: window, surface: surface, width: width, height: height, scale: scale, link: link)
        editor.start()
        return editor
    }
}

// The editor in a plugin of another format, in the same process (the CLAP
// plugin's gui extension, Sources/C/CCLAPEntry/gui.c): the plugin passes a
// URID map and a write function of its own, which carry the same messages
// as an LV2 host's (docs/plugin.md, "Messages"); it then calls
// `tactus_editor_port_event`, `tactus_editor_idle` and
// `tactus_editor_cleanup` as an LV2 host does. Main (UI) thread.

/// An editor in a child window of `parent` (an X11 Window; 0: the root), at
/// the host's `scale` (0: the display's own). Nil when there is no X display.
@_cdecl("tactus_editor_embed")
public func embed(
    _ parent: UInt, _ map: UnsafePointer<LV2_URID_Map>?, _ write: LV2UI_Write_Function?, _ controller: UnsafeMutableRawPointer?,
    _ scaleFactor: Double
) -> UnsafeMutableRawPointer? {
    guard let map, let write else { return nil }
    let scale = DisplayScale(hostValue: scaleFactor > 0 ? scaleFactor : nil)
    guard let editor = EditorWindow.open(parent: parent != 0 ? Window(parent) : nil, scale: scale,
        link: PluginLink(uris: URIDTable(map), write: write, controller: controller))
    else { return nil }
    return Unmanaged.passRetained(editor).toOpaque()
}

/// The editor's window shown (mapped) or hidden.
@_cdecl("tactus_editor_set_visible")
public func setVisible(_ handle: UnsafeMutableRawPointer?, _ visible: Bool) {
    guard let handle else { return }
    let editor = Unmanaged<EditorWindow>.fromOpaque(handle).takeUnretainedValue()
    if visible { XMapWindow(editor.display, editor.window) } else { XUnmapWindow(editor.display, editor.window) }
    XFlush(editor.display)
}

/// The host resizes the editor (device pixels, at least its minimum size); the window's ConfigureNotify redraws it.
@_cdecl("tactus_editor_set_size")
public func setSize(_ handle: UnsafeMutableRawPointer?, _ width: UInt32, _ height: UInt32) {
    guard let handle else { return }
    let editor = Unmanaged<EditorWindow>.fromOpaque(handle).takeUnretainedValue()
    XResizeWindow(editor.display, editor.window, width, height)
    XFlush(editor.display)
}

/// The editor's size in device pixels; with no editor, the size one opens at (`scaleFactor` as in `tactus_editor_embed`).
/// `minimum`: the smallest size instead.
@_cdecl("tactus_editor_size")
public func editorSize(
    _ handle: UnsafeMutableRawPointer?, _ scaleFactor: Double, _ minimum: Bool, _ width: UnsafeMutablePointer<UInt32>?,
    _ height: UnsafeMutablePointer<UInt32>?
) {
    let scale = handle.map { Unmanaged<EditorWindow>.fromOpaque($0).takeUnretainedValue().scale }
        ?? DisplayScale(hostValue: scaleFactor > 0 ? scaleFactor : nil)
    var w = scale.device(minimum ? EditorWindow.minimumWidth : EditorWindow.initialWidth)
    var h = scale.device(minimum ? EditorWindow.minimumHeight : EditorWindow.initialHeight)
    if let handle, !minimum {
        let editor = Unmanaged<EditorWindow>.fromOpaque(handle).takeUnretainedValue()
        w = editor.width
        h = editor.height
    }
    width?.pointee = UInt32(max(w, 1))
    height?.pointee = UInt32(max(h, 1))
}

@_cdecl("tactus_editor_cleanup")
public func cleanup(_ handle: LV2UI_Handle?) {
    guard let handle else { return }
    Unmanaged<EditorWindow>.fromOpaque(handle).takeRetainedValue().close()
}

@_cdecl("tactus_editor_port_event")
public func portEvent(_ handle: LV2UI_Handle?, _ port: UInt32, _ size: UInt32, _ format: UInt32, _ buffer: UnsafeRawPointer?) {
    guard let handle, let buffer else { return }
    Unmanaged<EditorWindow>.fromOpaque(handle).takeUnretainedValue().receive(port: port, size: size, format: format, buffer: buffer)
}

@_cdecl("tactus_editor_idle")
public func idle(_ handle: LV2UI_Handle?) -> Int32 {
    guard let handle else { return 1 }
    Unmanaged<EditorWindow>.fromOpaque(handle).takeUnretainedValue().idle()
    return 0
}

/// `ui:scaleFactor` among the host's options (an `atom:Float`; a Double is read too), nil when absent.
func scaleFactor(in options: UnsafePointer<LV2_Options_Option>, map: UnsafePointer<LV2_URID_Map>) -> Double? {
    func m(_ uri: UnsafePointer<CChar>) -> LV2_URID { map.pointee.map(map.pointee.handle, uri) }
    let key = m(tactus_uri_ui_scaleFactor), float = m(tactus_uri_atom_Float), double = m(tactus_uri_atom_Double)
    var i = 0
    while options[i].key != 0 {
        let option = options[i]
        i += 1
        guard option.key == key, let value = option.value else { continue }
        if option.type == float, option.size >= 4 { return Double(value.loadUnaligned(as: Float.self)) }
        if option.type == double, option.size >= 8 { return value.loadUnaligned(as: Double.self) }
    }
    return nil
}

/// `TactusEditorText` (CLV2.h), for tests: the text the editor shows.
@_cdecl("tactus_editor_text")
public func editorText(_ handle: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ capacity: UInt64) -> Int64 {
    guard let handle else { return -1 }
    guard let text = Unmanaged<EditorWindow>.fromOpaque(handle).takeUnretainedValue().textForTests() else { return -1 }
    if let buffer {
        let n = min(text.count, Int(clamping: capacity))
        text.withUnsafeBufferPointer { if let base = $0.baseAddress, n > 0 { buffer.update(from: base, count: n) } }
    }
    return Int64(text.count)
}
