"""An MCP tool's input schema made usable: references resolved, validity checked.

Servers generated from typed code (pydantic, zod) put shared types in `$defs` and refer
to them with `$ref`; many models handle that badly, so local references (`#/...`) are
inlined. A recursive type is inlined `MAX_DEPTH` levels deep, then left open (`{}`).
The result must be valid JSON Schema with an object at the root; a schema that is not is
refused with the reason, and that tool alone is skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

MAX_DEPTH = 8


class SchemaProblem(ValueError):
    """A schema that cannot be used, and why."""


def _pointer(root: Mapping[str, Any], ref: str) -> Any:
    node: Any = root
    for part in ref.removeprefix("#").strip("/").split("/") if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaProblem(f"$ref {ref!r} points to nothing")
    return node


def _inline(node: Any, root: Mapping[str, Any], trail: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(item, root, trail) for item in node]
    if not isinstance(node, Mapping):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if not ref.startswith("#"):
            raise SchemaProblem(f"$ref {ref!r} is not local (only #/... references are resolved)")
        if trail.count(ref) >= 2 or len(trail) >= MAX_DEPTH:
            return {"description": node.get("description", "(recursive)")}
        target = _inline(_pointer(root, ref), root, (*trail, ref))
        siblings = {k: _inline(v, root, trail) for k, v in node.items() if k != "$ref"}
        return {**target, **siblings} if isinstance(target, Mapping) else target
    return {
        k: _inline(v, root, trail) for k, v in node.items() if k not in ("$defs", "definitions")
    }


def prepare(schema: Any) -> dict[str, Any]:
    """The schema with references inlined (raises SchemaProblem)."""
    if schema is None:
        schema = {}
    if not isinstance(schema, Mapping):
        raise SchemaProblem(f"the input schema is {type(schema).__name__}, not an object")
    if schema.get("type", "object") != "object":
        raise SchemaProblem(f"the input schema's root is {schema.get('type')!r}, not an object")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        raise SchemaProblem(f"not valid JSON Schema at {where}: {exc.message}") from None
    out = _inline(schema, schema, ())
    out["type"] = "object"
    out.setdefault("properties", {})
    out.pop("$schema", None)
    return dict(out)
