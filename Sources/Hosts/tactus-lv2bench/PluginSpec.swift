/// Which plugin to run and how to set it up, from a command-line argument:
///
///     LABEL=URI[;SYMBOL=VALUE]...[;@PROPERTY=PATH]...
///
/// `SYMBOL=VALUE` sets a control input port (by its `lv2:symbol`) for the
/// whole run; `@PROPERTY=PATH` sends the plugin a `patch:Set` of PROPERTY to
/// the `atom:Path` PATH in the first block (how Tactus is given a pattern
/// file; its worker loads it during the warm-up).
struct PluginSpec {
    var label: String
    var uri: String
    var controls: [(symbol: String, value: Float)] = []
    var pathProperties: [(property: String, path: String)] = []

    struct ParseError: Error, CustomStringConvertible { var description: String }

    init(parsing text: String) throws {
        let items = text.split(separator: ";", omittingEmptySubsequences: true).map(String.init)
        guard let head = items.first, let eq = head.firstIndex(of: "=") else {
            throw ParseError(description: "'\(text)': expected LABEL=URI[;SYMBOL=VALUE]...")
        }
        label = String(head[..<eq])
        uri = String(head[head.index(after: eq)...])
        for item in items.dropFirst() {
            guard let eq = item.firstIndex(of: "=") else { throw ParseError(description: "'\(item)': expected SYMBOL=VALUE or @PROPERTY=PATH") }
            let key = String(item[..<eq])
            let value = String(item[item.index(after: eq)...])
            if key.hasPrefix("@") {
                pathProperties.append((String(key.dropFirst()), value))
            } else {
                guard let v = Float(value) else { throw ParseError(description: "'\(item)': the value is not a number") }
                controls.append((key, v))
            }
        }
    }
}
