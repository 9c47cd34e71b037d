"""bashlex's parser from the saved tables (`shell/rules/grammar.py`): the same parse as
the tables bashlex builds itself, and the saved file current for the installed bashlex."""

from __future__ import annotations

import json
import subprocess
import sys

from karyi.shell.rules.grammar import TABLES

LINES = [
    "seq 1 13000000",
    "git status && ls -la | grep x; echo $(git rev-parse HEAD) > /dev/null",
    'for f in *.py; do python3 "$f" || break; done',
    "if [ -f a ]; then cat a; elif true; then :; else echo no; fi",
    'while read -r line; do echo "$line"; done < <(ls)',
    "f() { echo `date` >&2; }; f",
    "(cd src && make -j4 2>&1) | tee log &",
    "A=1 B='two words' env | sort -u >> out.txt",
    "case $x in a|b) echo ab;; *) echo other;; esac",
    "cat <<EOF\nhello $USER\nEOF",
    "! true && { echo x; echo y; }",
    "echo 'unterminated",
]

PROBE = """
import json, sys
from karyi.shell.rules import grammar
built = [] if sys.argv[1] == "built" else None
bashlex = grammar.load_bashlex(built)
out = {"source": grammar.source, "trees": []}
for line in json.loads(sys.stdin.read()):
    try:
        out["trees"].append([t.dump() for t in bashlex.parse(line)])
    except Exception as exc:
        out["trees"].append(f"{type(exc).__name__}: {exc}")
if built:
    out["tables"] = {
        "grammar": grammar.grammar_digest(built[0].lr_productions),
        "action": built[0].lr_action,
        "goto": built[0].lr_goto,
    }
print(json.dumps(out))
"""


def probe(mode: str) -> dict[str, object]:
    """What a new interpreter's bashlex parses, its tables `saved` or `built` afresh."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        input=json.dumps(LINES),
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_saved_tables_parse_as_the_built_ones() -> None:
    saved, built = probe("saved"), probe("built")
    assert saved["source"] == "saved"
    assert built["source"] == "built"
    assert saved["trees"] == built["trees"]
    assert isinstance(saved["trees"], list) and "unexpected EOF" in str(saved["trees"][-1])


def test_the_saved_file_is_current_for_the_installed_bashlex() -> None:
    """When bashlex changes, `python -m karyi.shell.rules.grammar` writes the file again
    (until then every process builds the tables itself, slowly but correctly)."""
    built = probe("built")["tables"]
    saved = json.loads(TABLES.read_text(encoding="utf-8"))
    assert saved == json.loads(json.dumps(built)), (
        "grammar_tables.json is stale: run `python -m karyi.shell.rules.grammar`"
    )


def test_tables_of_another_grammar_are_not_used() -> None:
    """A digest that does not match (another bashlex) makes bashlex build its own."""
    script = (
        "from karyi.shell.rules import grammar;"
        "grammar.grammar_digest = lambda productions: 'another grammar';"
        "b = grammar.load_bashlex(); b.parse('ls | wc -l'); print(grammar.source)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "built"
