"""Output for the model: clean text, cut head + tail, the whole in a file."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from karyi.secrets.redact import Redactor
from karyi.shell import output
from karyi.shell.output import OutputLog, TextDecoder, collapse_cr, strip_ansi


def test_escape_sequences_and_controls_are_stripped() -> None:
    text = "\x1b[1;31merror\x1b[0m \x1b]0;title\x07done\x07\x1b(B\x1b=ok\ttab"
    assert strip_ansi(text) == "error doneok\ttab"


def test_the_decoder_holds_cut_sequences_and_characters() -> None:
    d = TextDecoder()
    pieces = [b"\x1b[3", b"2mgreen\x1b", b"[0m caf\xc3", b"\xa9\r\n"]
    assert "".join(d.feed(p) for p in pieces) == "green café\n"
    assert d.feed(b"a\r") == "a" and d.feed(b"\nb\r") == "\nb"  # a CRLF cut in two
    assert d.feed(b"", final=True) == "\r"


def test_pieces_without_escapes_are_cleaned_as_those_with_them() -> None:
    plain = b"build\x07 ok\x00\tdone\r\nnext caf\xc3"
    d = TextDecoder()
    assert d.feed(plain) == "build ok\tdone\nnext caf"  # é cut in two waits
    assert d.feed(b"\xa9\x7f\r") == "é"  # the CR may start a CRLF
    assert d.feed(b"\n\x1b[1mbold\x1b[0m") == "\nbold"
    assert d.feed(b"\r\x01x") == "\rx"


def test_carriage_returns_keep_the_last_form_of_a_line() -> None:
    assert collapse_cr("10%\r50%\r100%\ndone\r\n") == "100%\ndone\n"


def test_small_output_is_whole_and_no_file_is_written(tmp_path: Path) -> None:
    log = OutputLog(tmp_path / "out.log", 100)
    log.feed("hello\n")
    report = log.take()
    log.close()
    assert (report.text, report.omitted_chars, report.path) == ("hello\n", 0, None)
    assert not (tmp_path / "out.log").exists()


def test_large_output_is_cut_at_line_ends_and_kept_in_full(tmp_path: Path) -> None:
    log = OutputLog(tmp_path / "out.log", 400, shown="out.log")
    lines = [f"line {i:05d}" for i in range(10_000)]
    for line in lines:
        log.feed(line + "\n")
    report = log.take()
    log.close()
    head = report.text.partition("[... ")[0]
    tail = report.text.rpartition("...]\n")[2]
    shown = head.splitlines() + tail.splitlines()
    assert shown[:3] == lines[:3] and shown[-3:] == lines[-3:]
    assert report.omitted_lines == 10_000 - len(shown)
    assert report.omitted_chars == sum(len(x) + 1 for x in lines) - len(head) - len(tail)
    assert "omitted; the full output is in out.log ...]" in report.text
    assert (tmp_path / "out.log").read_text().splitlines() == lines


def test_each_report_shows_what_came_since_the_last(tmp_path: Path) -> None:
    log = OutputLog(tmp_path / "out.log", 100)
    log.feed("first\n")
    assert log.take().text == "first\n"
    log.feed("second\n")
    assert log.take().text == "second\n"


def test_the_file_is_redacted_even_across_pieces(tmp_path: Path) -> None:
    redactor = Redactor({"PW": "correct-horse-battery"})
    log = OutputLog(tmp_path / "out.log", 50, redactor)
    for piece in ["x" * 60, "pass=correct-hor", "se-battery\n", "end\n"]:
        log.feed(piece)
    log.close()
    assert (tmp_path / "out.log").read_text() == "x" * 60 + "pass=$KARYI{PW}\nend\n"


def test_nothing_is_written_after_the_cap_mark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the redactor held back at the end (a secret's start) obeys the cap too."""
    monkeypatch.setattr(output, "FILE_CAP", 100)
    log = OutputLog(tmp_path / "out.log", 10, Redactor({"PW": "correct-horse-battery"}))
    pieces = ["x" * 95 + "\n", "more output, then a cut secret: correct-hor"]
    for piece in pieces:
        log.feed(piece)
    log.close()
    written = (tmp_path / "out.log").read_bytes()
    assert written == "".join(pieces).encode()[:100] + b"\n[output file capped here]\n"


def test_memory_stays_bounded_whatever_the_output_size(tmp_path: Path) -> None:
    secrets = {f"S{i}": f"secret-value-number-{i:04d}-xyz" for i in range(20)}
    log = OutputLog(tmp_path / "out.log", 30_000, Redactor(secrets))
    piece = "".join(f"line {i} secret-value-number-0007-xyz ok\n" for i in range(6_000))
    tracemalloc.start()
    try:
        for _ in range(100):  # 24 MB
            log.feed(piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    log.close()
    assert log.total > 20_000_000
    assert peak < 4 * len(piece) + 1_000_000, peak  # a few pieces in flight, nothing more
    report = log.take()
    assert len(report.text) < 31_000 and "$KARYI{S7}" not in report.text  # redacted later
    with open(tmp_path / "out.log", encoding="utf-8") as fh:
        first = fh.readline()
    assert first == "line 0 $KARYI{S7} ok\n"
