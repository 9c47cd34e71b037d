"""The syntactic fallback's tree-sitter index on small real files of the languages whose
servers are usually absent: each declaration where its name is written, with its kind
and the types, modules or namespaces around it
(docs/context.md#where-navigation-answers-come-from)."""

from __future__ import annotations

import os
from pathlib import Path

from karyi.navigation.syntax import SyntaxIndex, declarations

DATA = Path(__file__).parent / "data" / "syntax"


def _outline(rel: str) -> list[str]:
    path = DATA / rel
    return [
        f"{s.place.line + 1}:{s.place.character + 1} {s.kind} {s.qualified}"
        for s in sorted(declarations(path, path.read_bytes()), key=lambda s: s.place)
    ]


def test_go_declarations() -> None:
    assert _outline("go/shapes/shapes.go") == [
        "7:7 constant Pi",
        "9:5 variable registry",
        "12:6 interface Shape",
        "13:2 method Shape.Area",
        "17:6 struct Circle",
        "18:2 field Circle.Radius",
        "21:6 type Meters",
        "24:18 method Circle.Area",  # the receiver's type qualifies it; `local` is not listed
        "30:6 function TotalArea",
    ]


def test_rust_declarations() -> None:
    assert _outline("rust/src/lib.rs") == [
        "3:11 constant PI",
        "6:11 interface Shape",
        "7:8 method Shape.area",
        "10:12 struct Circle",
        "11:9 field Circle.radius",
        "14:10 enum Unit",
        "15:5 enum_member Unit.Meters",
        "16:5 enum_member Unit.Feet",
        "20:8 method Circle.area",  # in `impl Shape for Circle`; its inner `square` is local
        "29:12 method Circle.new",
        "35:8 function total_area",
        "39:9 module units",
        "40:12 function units.to_feet",
        "45:14 function square",  # the macro
    ]


def test_c_and_cpp_declarations() -> None:
    assert _outline("c/shapes.c") == [
        "3:12 variable calls",
        "6:8 function circle_area",
        "11:8 function total_area",
        "19:20 function describe",  # behind `static const char *`
    ]
    header = _outline("c/shapes.h")
    assert "12:8 prototype circle_area" in header
    assert "6:16 struct circle" in header and "8:3 type circle_t" in header
    assert "10:13 enum_member unit.METERS" in header
    assert _outline("cpp/shapes.cpp") == [
        "3:11 namespace geometry",
        "5:16 method geometry.Circle.area",  # `Circle::area`
        "9:8 function geometry.total_area",
    ]
    assert "14:12 method geometry.Circle.area" in _outline("cpp/shapes.hpp")


def test_java_and_ruby_declarations() -> None:
    java = _outline("java/com/example/Shapes.java")
    assert java[:3] == [
        "6:20 class Shapes",
        "7:32 field Shapes.PI",
        "9:13 constructor Shapes.Shapes",
    ]
    assert "18:19 class Shapes.Circle" in java and "20:23 method Shapes.Circle.area" in java
    assert "26:26 method Shapes.totalArea" in java
    assert _outline("ruby/lib/shapes.rb") == [
        "2:8 module Shapes",
        "3:3 constant Shapes.PI",
        "6:9 class Shapes.Circle",
        "9:9 method Shapes.Circle.initialize",
        "13:9 method Shapes.Circle.area",
        "19:12 method Shapes.total_area",
    ]


def test_a_file_is_parsed_again_only_when_it_changes(tmp_path: Path) -> None:
    source = tmp_path / "a.go"
    source.write_text("package a\n\nfunc One() {}\n")
    index = SyntaxIndex(tmp_path, lambda _exts: {})
    first = index.outline(source)
    assert [s.name for s in first] == ["One"]
    assert index.outline(source) is first  # the same mtime: the cached list
    source.write_text("package a\n\nfunc Two() {}\n")
    stat = source.stat()
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert [s.name for s in index.outline(source)] == ["Two"]
    buffered = SyntaxIndex(tmp_path, lambda _exts: {source: "package a\n\nfunc Three() {}\n"})
    assert [s.name for s in buffered.outline(source)] == ["Three"]  # the unsaved buffer


async def test_a_name_is_found_only_where_git_does_not_ignore_it(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("vendor/\n")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "b.go").write_text("package b\n\nfunc Shared() {}\n")
    (tmp_path / "a.go").write_text("package a\n\nfunc Shared() {}\n")
    index = SyntaxIndex(tmp_path, lambda _exts: {})
    from karyi.navigation.grammars import GRAMMARS

    found = await index.named("Shared", tmp_path, GRAMMARS)
    assert [s.place.path.name for s in found] == ["a.go"]
    assert [s.name for s in await index.search("shar", tmp_path, GRAMMARS)] == ["Shared"]
