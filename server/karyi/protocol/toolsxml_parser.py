"""ToolsXML calls as they stream: the `<tools>` block, `<command>`, `<edit>`, `<read>`,
`<input>`, `<ctrl>` and every other registered tool (docs/protocol.md)."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import Any

from karyi.protocol.calls import DialectState, PartialCall, SchemaLookup
from karyi.protocol.coerce import CoerceError, coerce, property_schema
from karyi.protocol.toolsxml_tags import (
    END,
    EOF,
    RAW_TAGS,
    TOOLS_OPEN,
    Steps,
    Tag,
    TagReader,
    builtin_shape,
    dedent_script,
    resume_point,
)
from karyi.protocol.xmlcontent import (
    TAG_NAME,
    generic_params,
    partial_params,
)


@dataclass
class _Live:
    """The call being written: what `partial()` is built from."""

    tag: Tag
    index: int
    files: list[dict[str, Any]] | None = None  # <edit>: the files finished so far
    entry: dict[str, Any] | None = None  # <edit>: the <file> being read
    find: str | None = None  # <edit>: its <find> waiting for a <replace>
    child: str = ""  # <edit>: the <find> or <replace> being read


class ToolsXmlParser(TagReader):
    """Streaming parser for ToolsXML replies."""

    def __init__(self, schemas: SchemaLookup, state: DialectState | None) -> None:
        super().__init__(schemas, state)
        self._live: _Live | None = None

    def partial(self) -> PartialCall | None:
        """See `StreamParser.partial`: an `<edit>` with its complete pairs and the
        replacement being written; any other tool with its attributes and children."""
        live = self._live
        if live is None:
            return None
        so_far = self.raw_so_far()
        tag = live.tag
        if live.files is not None:
            return self._partial_edit(live, so_far)
        if tag.name in RAW_TAGS:
            key = RAW_TAGS[tag.name]
            params = {**(tag.attrs or {}), key: so_far or ""}
            return PartialCall(live.index, tag.name, params, (key,) if so_far is not None else ())
        params, open_name = partial_params(
            tag.name, tag.attrs or {}, so_far or "", self.schemas(tag.name)
        )
        return PartialCall(live.index, tag.name, params, (open_name,) if open_name else ())

    @staticmethod
    def _partial_edit(live: _Live, so_far: str | None) -> PartialCall:
        files = [dict(f, pairs=list(f["pairs"])) for f in live.files or ()]
        opened: tuple[str | int, ...] = ()
        if live.entry is not None:
            entry = dict(live.entry, pairs=list(live.entry["pairs"]))
            files.append(entry)
            if live.child == "replace" and live.find is not None and so_far is not None:
                entry["pairs"].append({"find": live.find, "replace": so_far})
                opened = ("files", len(files) - 1, "pairs", len(entry["pairs"]) - 1, "replace")
        return PartialCall(live.index, "edit", {"files": files}, opened)

    def run(self) -> Generator[None, None, None]:
        """Prose, then `<tools>` blocks, until the reply ends."""
        sc = self.sc
        while True:
            m = yield from sc.until_re(TOOLS_OPEN, 7, self.text)
            if m is None:
                return
            rest = yield from self._tag_text()
            if rest is None:
                self.text("<tools" + self._cut)
                return
            self._blocks += 1
            if not rest.rstrip(">").rstrip().endswith("/"):
                yield from self._block()

    def _block(self) -> Generator[None, None, None]:
        while True:
            self._cut = ""
            tag = yield from self._next("tools")
            if tag is EOF and self._cut and not self._cut.startswith("/") and self._truncated():
                continue
            if tag is END or tag is EOF:
                return
            broken = tag.error or tag.closing
            if broken and (at := resume_point(tag.source, 1)) and self.resume(tag.source[at:]):
                self._head = tag.source[:at]  # a tag never closed: `<grep\n<read>…`
                self.sc.start_recording()
                why = tag.error or "it has no '>'"
                self._finish(tag.name or "?", {}, f"unclosed tag {tag.source[:at].strip()}: {why}")
                continue
            self._head = tag.source
            self.sc.start_recording()
            if tag.closing:
                self._finish(
                    tag.name or "?",
                    {},
                    f"stray </{tag.name}> inside <tools>: it closes no open element",
                )
                continue
            self.started(tag.name)
            self._live = _Live(tag, self._index)
            try:
                yield from self._call(tag)
            finally:
                self._live = None

    def _truncated(self) -> bool:
        """The reply ended inside a tool's start tag: report it so the model learns. True
        when the calls after it are read again (see `_finish`)."""
        cut = self._cut
        m = TAG_NAME.match(cut)
        name = m.group() if m else "?"
        self._head = "<" + cut
        self.sc.start_recording()
        return self._finish(
            name, {}, f"unclosed <{name}>: the reply ended inside its start tag", start=1
        )

    def _finish(
        self, name: str, params: dict[str, Any], error: str | None, *, start: int | None = None
    ) -> bool:
        """Emit the call. One that took the rest of the reply with it (an element left
        unclosed) ends before the first line that starts another call's tag; that text
        is read again, and True is returned."""
        raw = self._head + self.sc.stop_recording()
        resumed = False
        if error is not None and self.sc.at_end():
            at = resume_point(raw, len(self._head) if start is None else start)
            if at is not None and self.resume(raw[at:]):
                raw, resumed = raw[:at], True
        if error is None and self._blocks > 1:
            error = (
                f"only one <tools> block is allowed per reply; this call is in block "
                f"{self._blocks} and was not run: put every call in the first block"
            )
        self.emit(name, params, raw=raw, error=error)
        return resumed

    def _call(self, tag: Tag) -> Generator[None, None, None]:
        name = tag.name
        schema = self.schemas(name)
        errors: list[str] = [tag.error] if tag.error else []
        if name == "edit" and builtin_shape(schema, "files"):
            params, errs = yield from self._edit(tag, schema)
        elif name == "read" and builtin_shape(schema, "files", "searches"):
            params, errs = yield from self._read(tag, schema)
        elif name in RAW_TAGS:
            params, errs = yield from self._raw_call(tag, schema)
        else:
            params, errs = yield from self._generic(tag, schema)
        errors += errs
        self._live = None
        self._finish(name, params, "; ".join(errors) if errors else None)

    def _raw_call(self, tag: Tag, schema: Mapping[str, Any] | None) -> Steps:
        key = RAW_TAGS[tag.name]
        errors: list[str] = []
        params: dict[str, Any] = {}
        for k, v in (tag.attrs or {}).items():
            try:
                params[k] = coerce(v, property_schema(schema, k), f"<{tag.name}>.{k}")
            except CoerceError as exc:
                errors.append(str(exc))
        content, error = ("", None) if tag.selfclosing else (yield from self._raw(tag.name))
        if tag.name == "command":
            content = dedent_script(content)
        elif tag.name == "ctrl":
            content = content.strip()
        params[key] = content
        return params, [*errors, error] if error else errors

    def _generic(self, tag: Tag, schema: Mapping[str, Any] | None) -> Steps:
        content, error = ("", None) if tag.selfclosing else (yield from self._raw(tag.name))
        if error:
            return {}, [error]
        try:
            return generic_params(tag.name, tag.attrs or {}, content, schema), []
        except CoerceError as exc:
            return {}, [str(exc)]

    def _edit(self, tag: Tag, schema: Mapping[str, Any] | None) -> Steps:
        files: list[dict[str, Any]] = []
        errors: list[str] = []
        if tag.selfclosing:
            return {"files": files}, ['<edit/> is empty: put <file src="..."> elements inside']
        if self._live is not None:
            self._live.files = files
        while True:
            child = yield from self._next("edit")
            if child is END:
                break
            if child is EOF:
                errors.append("unclosed <edit>: the reply ended before </edit>")
                break
            if child.name != "file" or child.closing:
                errors.append(f"<edit> may contain only <file> elements, found <{child.name}>")
                if err := (yield from self._skip(child)):
                    errors.append(err)
                    break
                continue
            entry, errs, ended = yield from self._edit_file(child, len(files) + 1)
            files.append(entry)
            if self._live is not None:
                self._live.entry = self._live.find = None
            errors += errs
            if ended:
                break
        if not files and not errors:
            errors.append('<edit> has no <file src="..."> element')
        return {"files": files}, errors

    def _edit_file(self, tag: Tag, n: int) -> Steps:
        src = (tag.attrs or {}).get("src", "")
        label = f'<file src="{src}">' if src else f"<file> #{n}"
        errors = [tag.error] if tag.error else []
        if not src:
            errors.append(f"<file> #{n} in <edit> needs a src attribute (the file's path)")
        pairs: list[dict[str, str]] = []
        entry: dict[str, Any] = {**(tag.attrs or {}), "src": src, "pairs": pairs}
        if tag.selfclosing:
            errors.append(f"{label} has no <find>/<replace> pairs")
            return entry, errors, False
        find: str | None = None
        live = self._live or _Live(tag, -1)
        live.entry, live.find = entry, None
        while True:
            child = yield from self._next("file")
            if child is END:
                break
            if child is EOF:
                errors.append(f"unclosed {label}: the reply ended before </file>")
                return entry, errors, True
            if child.closing or child.name not in ("find", "replace"):
                errors.append(
                    f"{label} may contain only <find> and <replace>, found <{child.name}>"
                )
                if err := (yield from self._skip(child)):
                    return entry, [*errors, err], True
                continue
            live.child = child.name
            text, err = ("", None) if child.selfclosing else (yield from self._raw(child.name))
            live.child = ""
            if err:
                return entry, [*errors, err], True
            if child.name == "find":
                if find is not None:
                    errors.append(f"{label}: <find> #{len(pairs) + 1} has no <replace> after it")
                find = text
            elif find is None:
                errors.append(f"{label}: <replace> #{len(pairs) + 1} has no <find> before it")
            else:
                pairs.append({"find": find, "replace": text})
                find = None
            live.find = find
        if find is not None:
            errors.append(f"{label}: <find> #{len(pairs) + 1} has no <replace> after it")
        if not pairs and not errors:
            errors.append(f"{label} has no <find>/<replace> pairs")
        return entry, errors, False

    def _read(self, tag: Tag, schema: Mapping[str, Any] | None) -> Steps:
        groups: dict[str, list[dict[str, Any]]] = {"files": [], "searches": []}
        errors: list[str] = []
        key_attr = {"file": ("files", "src"), "search": ("searches", "pattern")}
        while not tag.selfclosing:
            child = yield from self._next("read")
            if child is END:
                break
            if child is EOF:
                errors.append("unclosed <read>: the reply ended before </read>")
                break
            if child.closing or child.name not in key_attr:
                errors.append(f"<read> may contain only <file> and <search>, found <{child.name}>")
                if err := (yield from self._skip(child)):
                    errors.append(err)
                    break
                continue
            group, key = key_attr[child.name]
            item: dict[str, Any] = dict(child.attrs or {})
            if child.error:
                errors.append(child.error)
            if not child.selfclosing:
                text, err = yield from self._raw(child.name)
                if err:
                    errors.append(err)
                    break
                if text.strip() and key not in item:
                    item[key] = text.strip()
            if not item.get(key):
                errors.append(f"<{child.name}> in <read> needs a {key} attribute")
            groups[group].append(self._typed_item(schema, group, item, errors))
        if not groups["files"] and not groups["searches"] and not errors:
            errors.append(
                '<read> is empty: put <file src="..."/> or <search pattern="..."/> inside'
            )
        params: dict[str, Any] = {k: v for k, v in groups.items() if v}
        return params, errors

    @staticmethod
    def _typed_item(
        schema: Mapping[str, Any] | None, group: str, item: dict[str, Any], errors: list[str]
    ) -> dict[str, Any]:
        items = (property_schema(schema, group) or {}).get("items")
        out: dict[str, Any] = {}
        for k, v in item.items():
            try:
                sub = property_schema(items, k) if isinstance(items, Mapping) else None
                out[k] = coerce(v, sub, f"<read>.{group}.{k}")
            except CoerceError as exc:
                errors.append(str(exc))
        return out
