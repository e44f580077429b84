"""trainlint's 1-based code-point locations against LSP's 0-based positions, and the edits sent to editors."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from trainlint.diagnostics import Location
from trainlint.server.positions import UTF8, UTF16, UTF32, LineIndex, Position, TextEdit, apply_edits, text_edits


def test_a_location_is_one_based_and_a_position_zero_based() -> None:
    index = LineIndex("import torch\nx = torch.cuda.amp.autocast()\n")
    start, end = index.range_of(Location(2, 5), Location(2, 30))
    assert start == Position(1, 4)
    assert end == Position(1, 29)


def test_characters_beyond_the_basic_plane_count_twice_in_utf16_once_in_utf32_and_four_times_in_utf8() -> None:
    text = 's = "😋"; f(x)\n'  # f starts at column 11 (1-based code points)
    start = Location(1, 11)
    assert LineIndex(text, UTF16).range_of(start, Location(1, 15))[0] == Position(0, 11)
    assert LineIndex(text, UTF32).range_of(start, Location(1, 15))[0] == Position(0, 10)
    assert LineIndex(text, UTF8).range_of(start, Location(1, 15))[0] == Position(0, 13)


def test_lines_end_at_crlf_cr_and_lf_only() -> None:
    text = "a = 1\r\nb = 2\rc = 3\x0cd = 4\ne = 5\u2028f\n"
    index = LineIndex(text)
    assert index.range_of(Location(3, 1), Location(3, 2))[0] == Position(2, 0)
    # a form feed or U+2028 does not end a line for LibCST or LSP, unlike str.splitlines()
    assert index.range_of(Location(3, 7), Location(3, 8))[0] == Position(2, 6)
    assert index.range_of(Location(4, 7), Location(4, 8))[0] == Position(3, 6)


def test_a_point_finding_is_widened_to_a_character_an_editor_can_underline() -> None:
    index = LineIndex("def f(:\n    pass\n")
    assert index.range_of(Location(1, 7), Location(1, 7)) == (Position(0, 6), Position(0, 7))
    # at the end of the line: the last character
    assert index.range_of(Location(1, 8), Location(1, 8)) == (Position(0, 6), Position(0, 7))
    # past the end of the text: clamped to it
    assert LineIndex("x = (\n").range_of(Location(2, 1), Location(2, 1)) == (Position(1, 0), Position(1, 0))


def test_a_position_converts_back_to_the_same_offset() -> None:
    text = 'a = "😋"\r\nb\n'
    index = LineIndex(text)
    assert index.offset_at_position(Position(0, 7)) == text.index('"', 5)
    assert index.offset_at_position(Position(0, 99)) == text.index("\r")  # past the end of a line: its end
    assert index.offset_at_position(Position(1, 0)) == text.index("b")
    assert index.offset_at_position(Position(9, 0)) == len(text)


def test_edits_touch_only_the_changed_lines_and_characters() -> None:
    before = "import torch\nfrom torch.cuda.amp import GradScaler, autocast\n\nx = 1\n\nscaler = GradScaler()\n"
    after = "import torch\nfrom torch.cuda.amp import autocast\n\nx = 1\n\nscaler = torch.amp.GradScaler()\n"
    edits = text_edits(before, after)
    assert edits == [
        TextEdit(Position(1, 27), Position(1, 39), ""),
        TextEdit(Position(5, 9), Position(5, 9), "torch.amp."),
    ]
    assert apply_edits(before, edits) == after


def test_an_edit_never_ends_between_cr_and_lf() -> None:
    before = "a = 1\r\nb = 2\r\n"
    after = "a = 1\r\nb = 2\r\nc = 3\r\n"
    for edit in text_edits(before, after) + text_edits(after, before) + text_edits("x\r\n", "x\n") + text_edits("x\n", "x\r\n"):
        for position in (edit.start, edit.end):
            assert position.character <= 5
    assert apply_edits("x\r\n", text_edits("x\r\n", "x\n")) == "x\n"


_PIECES = st.sampled_from(["a", "b", " ", "\n", "\r", "\r\n", "😋", "é", "\x0c", "\u2028", "# x", "\t"])
_TEXTS = st.lists(_PIECES, max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(before=_TEXTS, after=_TEXTS, encoding=st.sampled_from([UTF8, UTF16, UTF32]))
def test_applying_the_edits_gives_exactly_the_new_text(before: str, after: str, encoding: str) -> None:
    assert apply_edits(before, text_edits(before, after, encoding), encoding) == after
