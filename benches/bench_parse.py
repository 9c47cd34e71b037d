"""Streaming parse vs re-parsing the whole reply on every chunk (issues [foundation], [scale]).

A 200 KB reply is fed in 8-byte chunks. The baseline is what a non-incremental parser
must do to find calls while the reply streams: parse the whole text received so far
after every chunk. It is measured, every chunk, on the first 10 KB and 20 KB of the
same reply (1,250 and 2,500 parses; best of 3), next to streaming the same text: those ratios are
measured. Its cost is a*n + b*n^2 for n chunks (a fixed cost per parse, and each parse
reads the whole prefix); a and b solved from the two measurements give the 200 KB
figure, labelled as extrapolated. `--full` measures the 200 KB baseline for real too
(25,000 parses of up to 200 KB: minutes per dialect) and shows how far off the
extrapolation was: for toolsxml, once, 330 s measured against 251 s extrapolated (0.76x:
the extrapolation understates the baseline, so the ratio it gives is conservative).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from karyi.protocol import get_dialect
from karyi.protocol.calls import CallReady

SIZE = 200_000
CHUNK = 8
SMALL = (10_000, 20_000)
SMOKE: dict[str, object] = {"SIZE": 4_000, "SMALL": (1_000, 2_000)}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""

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


def reparse(dialect: str, text: str) -> float:
    """Seconds to parse the whole text received so far after every chunk, measured."""
    d = get_dialect(dialect)
    start = time.perf_counter()
    for end in range(CHUNK, len(text) + CHUNK, CHUNK):
        d.parser().parse(text[:end])
    return time.perf_counter() - start


def _extrapolate(measured: dict[int, float], size: int) -> float:
    """a*n + b*n^2 through the two measured points, at `size` (n in chunks)."""
    (n1, t1), (n2, t2) = ((k / CHUNK, v) for k, v in sorted(measured.items()))
    b = (t2 / n2 - t1 / n1) / (n2 - n1)
    a = t1 / n1 - b * n1
    n = size / CHUNK
    return a * n + b * n * n


def _stream_s(dialect: str, text: str) -> float:
    return min(streaming(dialect, text)[0] for _ in range(3))


def main(report: Callable[[str], None] = print, full: bool = False) -> dict[str, float]:
    """Run the benchmark; returns the speed-up per dialect at 200 KB."""
    ratios: dict[str, float] = {}
    small, large = SMALL
    report(f"streaming parse of a {SIZE // 1000} KB reply in {CHUNK}-byte chunks")
    report(
        f"{'dialect':<10}{'calls':>6}{'streaming':>11}"
        f"{f're-parse {small // 1000} KB':>16}{f'{large // 1000} KB':>9}"
        f"{f'{SIZE // 1000} KB (extrap.)':>18}{'ratio':>8}"
    )
    for name, make in (
        ("toolsxml", toolsxml_reply),
        ("agentxml", agentxml_reply),
        ("toolcall", toolcall_reply),
    ):
        text = make(SIZE)
        stream_s, calls = min(streaming(name, text) for _ in range(3))
        measured = {n: min(reparse(name, text[:n]) for _ in range(3)) for n in SMALL}
        extrapolated = _extrapolate(measured, len(text))
        small_ratio = measured[large] / _stream_s(name, text[:large])
        ratios[name] = extrapolated / stream_s
        report(
            f"{name:<10}{calls:>6}{stream_s * 1000:>9.1f}ms"
            f"{measured[small]:>15.2f}s{measured[large]:>8.2f}s"
            f"{extrapolated:>17.0f}s{ratios[name]:>7.0f}x"
        )
        report(f"{'':<10}measured at {large // 1000} KB: re-parse / streaming = {small_ratio:.0f}x")
        if full:
            real = reparse(name, text)
            ratios[name] = real / stream_s
            report(
                f"{'':<10}measured at {SIZE // 1000} KB: re-parse {real:.0f}s "
                f"(extrapolation was {extrapolated / real:.2f}x of it), {ratios[name]:.0f}x"
            )
    report("target: >= 20x (streaming must stay linear in the reply size)")
    return ratios


if __name__ == "__main__":
    main(full="--full" in sys.argv[1:])
