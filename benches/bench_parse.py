"""Streaming parse vs re-parsing the whole reply on every chunk (issue [foundation]).

A 200 KB reply is fed in 8-byte chunks. The baseline is what a non-incremental parser
must do to find calls while the reply streams: parse the whole text received so far
after every chunk. Running that 25,000 times would take minutes, so it is timed on
evenly spaced prefixes and extrapolated (its cost is linear in the prefix, so the mean
over evenly spaced prefixes is the mean over all of them); both figures are printed.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from karyi.protocol import get_dialect
from karyi.protocol.calls import CallReady

SIZE = 200_000
CHUNK = 8
SAMPLES = 60

CODE = """export function Row<T extends object>({ item }: { item: T }) {
  return <div className="row">{item && <span>{String(item)}</span>}</div>;
}
if (a < b && c > d) { run("x > y 2>&1"); }
"""


def toolsxml_reply(size: int) -> str:
    parts = ["I will update the components and run the tests.\n\n<tools>\n"]
    n = 0
    while sum(map(len, parts)) < size:
        n += 1
        parts.append(
            f'  <edit>\n    <file src="src/c{n}.tsx">\n      <find>{CODE}</find>\n'
            f"      <replace>{CODE.replace('row', f'row-{n}')}</replace>\n    </file>\n  </edit>\n"
            f'  <read><file src="src/c{n}.tsx"/></read>\n'
            f"  <command>\n    npm test -- c{n} > out.log 2>&1\n  </command>\n"
        )
    parts.append("</tools>\n")
    return "".join(parts)


def agentxml_reply(size: int) -> str:
    import json

    calls = []
    n = 0
    while len(json.dumps(calls)) < size:
        n += 1
        calls.append(
            {
                "id": str(n),
                "name": "write_file",
                "parameters": {"filePath": f"src/c{n}.tsx", "content": CODE},
            }
        )
    return (
        f"<thinking>Write the files.</thinking>\n<tools>\n{json.dumps(calls, indent=1)}\n</tools>"
    )


def toolcall_reply(size: int) -> str:
    parts = ["Writing files.\n"]
    n = 0
    while sum(map(len, parts)) < size:
        n += 1
        parts.append(
            f"<tool_call>\n  <name>write_file</name>\n  <params>\n"
            f"    <path><![CDATA[src/c{n}.tsx]]></path>\n"
            f"    <content><![CDATA[{CODE}]]></content>\n  </params>\n</tool_call>\n"
        )
    return "".join(parts)


def streaming(dialect: str, text: str) -> tuple[float, int]:
    start = time.perf_counter()
    parser = get_dialect(dialect).parser()
    calls = 0
    for i in range(0, len(text), CHUNK):
        calls += sum(isinstance(e, CallReady) for e in parser.feed(text[i : i + CHUNK]))
    calls += sum(isinstance(e, CallReady) for e in parser.close())
    return time.perf_counter() - start, calls


def reparse_estimate(dialect: str, text: str) -> float:
    d = get_dialect(dialect)
    chunks = (len(text) + CHUNK - 1) // CHUNK
    times = []
    for k in range(1, SAMPLES + 1):
        end = min(len(text), (chunks * k // SAMPLES) * CHUNK)
        start = time.perf_counter()
        d.parser().parse(text[:end])
        times.append(time.perf_counter() - start)
    return statistics.fmean(times) * chunks


def main(report: Callable[[str], None] = print) -> dict[str, float]:
    """Run the benchmark; returns the speed-up per dialect."""
    ratios: dict[str, float] = {}
    report(f"streaming parse of a {SIZE // 1000} KB reply in {CHUNK}-byte chunks")
    report(f"{'dialect':<10}{'calls':>7}{'streaming':>12}{'re-parse (est.)':>18}{'ratio':>9}")
    for name, make in (
        ("toolsxml", toolsxml_reply),
        ("agentxml", agentxml_reply),
        ("toolcall", toolcall_reply),
    ):
        text = make(SIZE)
        stream_s, calls = min(streaming(name, text) for _ in range(3))
        reparse_s = reparse_estimate(name, text)
        ratios[name] = reparse_s / stream_s
        report(
            f"{name:<10}{calls:>7}{stream_s * 1000:>10.1f}ms"
            f"{reparse_s:>16.1f}s{ratios[name]:>8.0f}x"
        )
    report("target: >= 20x (streaming must stay linear in the reply size)")
    return ratios


if __name__ == "__main__":
    main()
