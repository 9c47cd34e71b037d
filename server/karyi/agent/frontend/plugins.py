"""Installing plugins and marketplaces: what `karyi plugin` does, for any front end
(docs/extensions.md#plugins).

A plugin comes from a local folder, a git repository (cloned with the real `git`, no
work tree's hooks run), or a marketplace (`NAME@MARKETPLACE`): a folder or repository
whose `.claude-plugin/marketplace.json` lists plugins and where each one is. Its files
are copied unchanged (without `.git`) to its scope's folder (settings/plugins.py) and
recorded in that scope's `installed.json`; reading them is `settings/plugins.py`'s and
`plugin_layer.py`'s business. Marketplaces are the user's: kept under
`<user config dir>/karyi/plugins/marketplaces/NAME/`, recorded in `marketplaces.json`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from karyi.core.atomic import write_atomic
from karyi.settings.plugins import (
    MANIFEST,
    RECORDS,
    Plugin,
    Scope,
    inside,
    installed,
    plugins_dir,
    read_manifest,
    read_records,
)

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MARKETPLACE = Path(".claude-plugin") / "marketplace.json"
GIT_SECONDS = 300


class PluginError(Exception):
    """A plugin or marketplace that cannot be installed, found or changed (one sentence)."""


def is_git_url(source: str) -> bool:
    """Whether `source` names a git repository rather than a local folder."""
    return bool(re.match(r"^(https?|ssh|git|file)://|^[\w.-]+@[\w.-]+:", source)) or (
        source.endswith(".git") and not Path(source).is_dir()
    )


def _git_clone(url: str, into: Path) -> None:
    """A shallow clone of `url`, without running anything the repository names."""
    command = ["git", "-c", "core.hooksPath=/dev/null", "clone", "--quiet", "--depth", "1"]
    try:
        done = subprocess.run(
            [*command, "--", url, str(into)],
            capture_output=True,
            text=True,
            timeout=GIT_SECONDS,
            env={"GIT_TERMINAL_PROMPT": "0", "PATH": _path()},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PluginError(f"git clone {url} failed: {exc}") from None
    if done.returncode != 0:
        raise PluginError(f"git clone {url} failed: {done.stderr.strip() or done.returncode}")


def _path() -> str:
    return os.environ.get("PATH", "/usr/bin:/bin")


def _copy(source: Path, target: Path) -> None:
    """The folder's files, unchanged, without git's own folder."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))


def _save_records(folder: Path, records: Mapping[str, Any], name: str = RECORDS) -> None:
    data = json.dumps({"plugins": dict(sorted(records.items()))}, indent=2).encode()
    write_atomic(folder / name, data, display=str(folder / name), make_parents=True)


def _fetched(source: str, work: Path) -> Path:
    """A local folder of `source` (a clone under `work` for a git URL)."""
    if is_git_url(source):
        clone = work / "clone"
        _git_clone(source, clone)
        return clone
    path = Path(source).expanduser().resolve()
    if not path.is_dir():
        raise PluginError(f"{source}: no such folder (and not a git URL)")
    return path


def _plugin_name(folder: Path, given: str | None) -> str:
    manifest = read_manifest(folder)
    if not manifest and not any((folder / p).exists() for p in ("commands", "skills", "agents")):
        raise PluginError(f"{folder}: not a plugin (no {MANIFEST}, commands/, agents/ or skills/)")
    name = str(manifest.get("name") or given or folder.name)
    if not NAME.match(name):
        raise PluginError(f"{name!r} is not a usable plugin name (letters, digits, '-', '_')")
    return name


def add_plugin(
    source: str,
    scope: Scope = "user",
    root: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Plugin:
    """Install a plugin from a folder, a git URL or `NAME@MARKETPLACE`, enabled."""
    if "@" in source and not is_git_url(source) and not Path(source).exists():
        name, _, market = source.partition("@")
        folder, where = _from_marketplace(name, market, env)
        return _install(folder, scope, root, env, source, where, name)
    with tempfile.TemporaryDirectory(prefix="karyi-plugin-") as work:
        return _install(_fetched(source, Path(work)), scope, root, env, source, None, None)


def _install(
    folder: Path,
    scope: Scope,
    root: Path | None,
    env: Mapping[str, str] | None,
    source: str,
    cleanup: Path | None,
    given: str | None,
) -> Plugin:
    try:
        name = _plugin_name(folder, given)
        target_dir = plugins_dir(scope, root, env)
        _copy(folder, target_dir / name)
    finally:
        if cleanup is not None:
            shutil.rmtree(cleanup, ignore_errors=True)
    manifest = read_manifest(target_dir / name)
    records = read_records(target_dir)
    records[name] = {
        "source": source,
        "enabled": True,
        "version": str(manifest.get("version", "")),
        "description": str(manifest.get("description", "")),
    }
    _save_records(target_dir, records)
    return next(p for p in installed(root, env) if p.name == name and p.scope == scope)


def _located(
    name: str, scope: Scope | None, root: Path | None, env: Mapping[str, str] | None
) -> Plugin:
    """The installed plugin `name` (in `scope` when given; the user's first)."""
    for plugin in _every(root, env):
        if plugin.name == name and scope in (None, plugin.scope):
            return plugin
    where = f" in scope {scope}" if scope else ""
    raise PluginError(f"no plugin named {name!r} is installed{where}")


def _every(root: Path | None, env: Mapping[str, str] | None) -> list[Plugin]:
    """Every installed plugin of both scopes, shadowed ones too (to remove them)."""
    out = installed(root, env)
    if root is not None:
        folder = plugins_dir("workspace", root, env)
        for name in read_records(folder):
            if not any(p.name == name and p.scope == "workspace" for p in out):
                out.append(Plugin(name, folder / name, "workspace", True, ""))
    return out


def remove_plugin(
    name: str,
    scope: Scope | None = None,
    root: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Plugin:
    """Uninstall: its record and its files."""
    plugin = _located(name, scope, root, env)
    folder = plugins_dir(plugin.scope, root, env)
    records = read_records(folder)
    records.pop(name, None)
    _save_records(folder, records)
    shutil.rmtree(folder / name, ignore_errors=True)
    return plugin


def set_enabled(
    name: str,
    enabled: bool,
    scope: Scope | None = None,
    root: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Plugin:
    """Enable or disable an installed plugin (its files stay)."""
    plugin = _located(name, scope, root, env)
    folder = plugins_dir(plugin.scope, root, env)
    records = read_records(folder)
    records.setdefault(name, {})["enabled"] = enabled
    _save_records(folder, records)
    return _located(name, plugin.scope, root, env)


# -- marketplaces ----------------------------------------------------------------------


def _markets_dir(env: Mapping[str, str] | None) -> Path:
    return plugins_dir("user", None, env) / "marketplaces"


def marketplaces(env: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """The marketplaces added, by name: `{source, path, plugins}`."""
    folder = _markets_dir(env)
    out: dict[str, dict[str, Any]] = {}
    for name, record in read_records(folder).items():
        listing = _read_marketplace(folder / name)
        entries = listing.get("plugins")
        entries = entries if isinstance(entries, list) else []
        plugins = [e for e in entries if isinstance(e, dict) and isinstance(e.get("name"), str)]
        out[name] = {
            "source": record.get("source", ""),
            "path": str(folder / name),
            "plugins": plugins,
        }
    return out


def _read_marketplace(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / MARKETPLACE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PluginError(f"{folder / MARKETPLACE}: cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise PluginError(f"{folder / MARKETPLACE}: not a JSON object")
    return data


def add_marketplace(source: str, env: Mapping[str, str] | None = None) -> str:
    """Add a marketplace from a folder or a git URL; returns its name."""
    with tempfile.TemporaryDirectory(prefix="karyi-market-") as work:
        folder = _fetched(source, Path(work))
        name = str(_read_marketplace(folder).get("name") or folder.name)
        if not NAME.match(name):
            raise PluginError(f"{name!r} is not a usable marketplace name")
        markets = _markets_dir(env)
        _copy(folder, markets / name)
    records = read_records(markets)
    records[name] = {"source": source}
    _save_records(markets, records)
    return name


def remove_marketplace(name: str, env: Mapping[str, str] | None = None) -> None:
    """Forget a marketplace (the plugins installed from it stay)."""
    markets = _markets_dir(env)
    records = read_records(markets)
    if name not in records:
        raise PluginError(f"no marketplace named {name!r}")
    records.pop(name)
    _save_records(markets, records)
    shutil.rmtree(markets / name, ignore_errors=True)


def _from_marketplace(
    name: str, market: str, env: Mapping[str, str] | None
) -> tuple[Path, Path | None]:
    """The folder of plugin `name` as marketplace `market` lists it, and a temporary
    folder to remove afterwards (a clone), or None."""
    known = marketplaces(env)
    if market not in known:
        raise PluginError(
            f"no marketplace named {market!r}: add it with karyi plugin marketplace add"
        )
    entry = next((e for e in known[market]["plugins"] if e["name"] == name), None)
    if entry is None:
        names = ", ".join(e["name"] for e in known[market]["plugins"]) or "none"
        raise PluginError(f"marketplace {market} has no plugin {name!r} (it has: {names})")
    base = Path(known[market]["path"])
    source = entry.get("source")
    if isinstance(source, str) and not is_git_url(source):
        meta = _read_marketplace(base).get("metadata")
        prefix = meta.get("pluginRoot", "") if isinstance(meta, dict) else ""
        rel = source if source.startswith("./") or not prefix else f"{prefix}/{source}"
        folder = inside(base, rel)
        if folder is None or not folder.is_dir():
            raise PluginError(f"marketplace {market}: {name}'s folder {source} is not in it")
        return folder, None
    url = _entry_url(source)
    if url is None:
        raise PluginError(f"marketplace {market}: {name}'s source is of a kind Karyi cannot fetch")
    work = Path(tempfile.mkdtemp(prefix="karyi-plugin-"))
    try:
        _git_clone(url, work / "clone")
    except PluginError:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return work / "clone", work


def _entry_url(source: Any) -> str | None:
    if isinstance(source, str):
        return source
    if not isinstance(source, dict):
        return None
    if source.get("source") == "github" and isinstance(source.get("repo"), str):
        return f"https://github.com/{source['repo']}.git"
    if source.get("source") in ("url", "git") and isinstance(source.get("url"), str):
        return str(source["url"])
    return None
