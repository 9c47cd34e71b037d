"""docs/acp.md's table of the stable v1 protocol is complete and true: it names every
method and update of the official library's stable schema, every capability it names
exists there, and what `karyi acp` answers to `initialize` matches it (a capability it
advertises says "yes", one it does not says "no", and every one it advertises is in the
table). A row marked "(unstable)" is looked up in the unstable schema."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION
from acp.schema import (
    AuthCapabilities,
    BooleanConfigOptionCapabilities,
    ClientCapabilities,
    ClientSessionCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    FileSystemCapabilities,
    SessionConfigOptionsCapabilities,
)

from tests.acp.conftest import Start

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "acp.md").read_text()
SCHEMA = Path(__file__).parent / "ts/node_modules/@agentclientprotocol/sdk/schema/v1/schema.json"
UNSTABLE = SCHEMA.with_name("schema.unstable.json")
EVERYTHING = ClientCapabilities(
    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
    terminal=True,
    auth=AuthCapabilities(terminal=True),
    elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()),
    session=ClientSessionCapabilities(
        config_options=SessionConfigOptionsCapabilities(boolean=BooleanConfigOptionCapabilities())
    ),
)


def _rows() -> list[tuple[set[str], list[str], str]]:
    """(names in the first cell, capability paths, Karyi's answer) of each table row."""
    section = DOC.split("## The stable v1 protocol, method by method", 1)[1]
    table = section.split("**v2 (alpha).**", 1)[0]
    rows = []
    for line in table.splitlines():
        if not line.startswith("| ") or line.startswith(("| stable v1 |", "|---")):
            continue
        what, capability, answer = (cell.strip() for cell in line.strip().strip("|").split("|"))
        names = set(re.findall(r"`([^`]+)`", what))
        if "(unstable)" in what:  # its capability is in the unstable schema only
            names.add("(unstable)")
        rows.append((names, re.findall(r"`([^`]+)`", capability), answer))
    return rows


def _defs(schema: Path = SCHEMA) -> dict[str, Any]:
    assert schema.is_file(), "run `make acp-ts` (part of `make test`) to install the library"
    defs: dict[str, Any] = json.loads(schema.read_text())["$defs"]
    return defs


def _in_schema(defs: dict[str, Any], definition: str, path: list[str]) -> bool:
    """Whether `definition.path…` is a property path of the schema."""
    node = defs[definition]
    for name in path:
        prop = node.get("properties", {}).get(name)
        if prop is None:
            return False
        refs = [prop, *prop.get("anyOf", []), *prop.get("allOf", [])]
        ref = next((r["$ref"] for r in refs if "$ref" in r), None)
        node = defs[ref.rsplit("/", 1)[1]] if ref else prop
    return True


def _advertised(value: Any, path: str = "agentCapabilities") -> set[str]:
    """The capability paths an `initialize` answer turns on (`true` or `{}`)."""
    if value is True:
        return {path}
    if not isinstance(value, dict):
        return set()
    children = {k: v for k, v in value.items() if k != "_meta"}
    if not children and path.count(".") > 1:
        return {path}
    return set().union(*(_advertised(v, f"{path}.{k}") for k, v in children.items()))


def _at(answer: dict[str, Any], path: str) -> Any:
    value: Any = answer
    for name in path.split("."):
        value = value.get(name) if isinstance(value, dict) else None
    return value


def test_the_table_names_every_stable_method_and_update() -> None:
    defs = _defs()
    methods = {d["x-method"] for d in defs.values() if "x-method" in d}
    updates = {o["properties"]["sessionUpdate"]["const"] for o in defs["SessionUpdate"]["oneOf"]}
    named = set().union(*(names for names, _, _ in _rows()))
    assert (methods | updates) - named == set()


def test_every_capability_in_the_table_is_in_the_schema() -> None:
    stable, unstable = _defs(), _defs(UNSTABLE)
    for names, capabilities, _ in _rows():
        defs = unstable if "(unstable)" in names else stable
        for path in capabilities:
            side, *rest = path.split(".")
            if side == "authMethods":
                continue
            owner = {
                "agentCapabilities": "AgentCapabilities",
                "clientCapabilities": "ClientCapabilities",
            }
            assert _in_schema(defs, owner[side], rest), path


async def test_the_table_says_what_initialize_advertises(karyi_acp: Start) -> None:
    agent = await karyi_acp(initialize=False)
    init = await agent.conn.initialize(
        protocol_version=PROTOCOL_VERSION, client_capabilities=EVERYTHING
    )
    answer = {"agentCapabilities": init.model_dump(by_alias=True, exclude_none=True)}
    answer["agentCapabilities"] = answer["agentCapabilities"]["agentCapabilities"]
    listed: set[str] = set()
    for _, capabilities, said in _rows():
        for path in capabilities:
            listed.add(path)
            if path == "authMethods":
                offered = {m.id for m in init.auth_methods or []}
                assert offered and all(f"`{i}`" in said for i in offered), said
            elif path.startswith("agentCapabilities."):
                on = _at(answer, path) not in (None, False)
                assert said.startswith("yes" if on else "no"), (path, said)
    assert _advertised(answer["agentCapabilities"]) - listed == set()
