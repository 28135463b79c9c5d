"""The pattern messages' own rules (docs/plugin.md, "Messages"), written out again
in Python so that tests check the plugin and the editor against the description,
not against each other: a text's identity (TextHash) and a change applied to the
text it was made on (urn:tactus:patternChange). Used by Tests/Editor/editor-test
and Tests/Hosts/editor/song-session.py."""


def text_hash(data):
    """TextHash: FNV-1a, 64 bits, of the bytes."""
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def apply_change(base, change):
    """A urn:tactus:patternChange (its wire form, bytes) applied to `base` (bytes);
    raises ValueError when it was not made on `base` or does not give the text it names."""
    head = b"tactus-change 1\n"
    if not change.startswith(head):
        raise ValueError("no tactus-change header")
    at = len(head)

    def line():
        nonlocal at
        end = change.index(b"\n", at)
        words = change[at:end].decode().split(" ")
        at = end + 1
        return words

    base_words, result_words = line(), line()
    if base_words[0] != "base" or int(base_words[1]) != len(base) or int(base_words[2], 16) != text_hash(base):
        raise ValueError(f"not made on this text: {base_words}, the text has {len(base)} bytes")
    starts = [0] + [i + 1 for i, b in enumerate(base) if b == 10 and i + 1 < len(base)] if base else []
    lines = len(starts)
    starts.append(len(base))
    out, cursor = bytearray(), 0
    while at < len(change):
        words = line()
        if words[0] != "replace":
            raise ValueError(f"expected replace, found {words}")
        first, count, size = int(words[1]) - 1, int(words[2]), int(words[3])
        if first < cursor or first + count > lines:
            raise ValueError(f"lines {first + 1}+{count} out of order or past {lines}")
        out += base[starts[cursor]:starts[first]] + change[at:at + size]
        at += size
        cursor = first + count
    out += base[starts[cursor]:]
    if int(result_words[1]) != len(out) or int(result_words[2], 16) != text_hash(out):
        raise ValueError("the result is not the text named")
    return bytes(out)
