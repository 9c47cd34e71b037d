"""`karyi review`: review a change from the terminal or CI, as text, JSON or SARIF
(docs/review.md). Exit 1 when a finding reaches `--fail-on`, 0 otherwise, 2 on bad input."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import IO

from rich.console import Console

from karyi.agent.code_review.changes import Change, ChangeError, collect
from karyi.agent.code_review.findings import reaches
from karyi.agent.code_review.runner import Budget, Review, run_review
from karyi.agent.frontend.startup import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    settings_for,
    workspace_root,
)
from karyi.agent.runtime import Runtime
from karyi.cli.review_text import print_review, summary
from karyi.llm.base import Provider, ProviderError


def cmd_review(args: argparse.Namespace) -> int:
    """Review the chosen change and write the findings; the exit status says whether one
    reaches `--fail-on`."""
    root = workspace_root(args.workspace)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        change = collect(root, base=args.base, commit=args.commit, paths=args.paths)
    except ChangeError as exc:
        raise UsageError(str(exc)) from None
    if change.empty:
        err.print(f"nothing to review: no changed lines in the {change.label}")
        if args.format != "text":
            _write(args, _empty(args.format, change, root))
        return EXIT_OK
    settings = settings_for(root, args)
    runtime = Runtime.open(root, settings)
    try:
        provider = runtime.provider()
    except ProviderError as exc:
        runtime.close()
        raise UsageError(exc.message) from None
    files = len(change.lines)
    err.print(f"[dim]karyi review · {change.label} · {files} file(s) · {provider.label}[/dim]")
    budget = Budget(tokens=args.max_tokens, cost=args.max_cost)
    try:
        review = asyncio.run(_review(runtime, change, provider, budget))
    finally:
        runtime.close()
    _report(args, review, root, err)
    return EXIT_FAILED if reaches(review.findings, args.fail_on) else EXIT_OK


async def _review(runtime: Runtime, change: Change, provider: Provider, budget: Budget) -> Review:
    try:
        return await run_review(runtime, change, provider=provider, budget=budget)
    finally:
        await provider.aclose()
        await runtime.aclose()


def _report(args: argparse.Namespace, review: Review, root: Path, err: Console) -> None:
    if args.format == "text":
        if args.output:
            with open(args.output, "w", encoding="utf-8") as f:
                print_review(Console(file=f, highlight=False, soft_wrap=True), review, root)
        else:
            print_review(Console(highlight=False, soft_wrap=True), review, root)
        return
    if args.format == "json":
        text = json.dumps(review.to_dict(), ensure_ascii=False, indent=2)
    else:
        from karyi.agent.code_review.sarif import to_sarif

        text = json.dumps(to_sarif(review, root), ensure_ascii=False, indent=2)
    _write(args, text)
    err.print(summary(review))


def _empty(kind: str, change: Change, root: Path) -> str:
    """What json and sarif say when there is nothing to review: no findings."""
    from karyi.agent.code_review.findings import Sorted

    review = Review(change, Sorted([], 0, 0), [], Budget())
    if kind == "json":
        return json.dumps(review.to_dict(), ensure_ascii=False, indent=2)
    from karyi.agent.code_review.sarif import to_sarif

    return json.dumps(to_sarif(review, root), ensure_ascii=False, indent=2)


def _write(args: argparse.Namespace, text: str) -> None:
    out: IO[str]
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")
