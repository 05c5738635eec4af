"""Versions from a command's arguments or a file, stored for a function; what
arrives is run (:func:`~codequorum.lsp.commands.run_dynamic.run_arrived`)."""

from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codequorum.core.limits import json_depth_problem
from codequorum.core.model import Version
from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import CommandError
from codequorum.lsp.commands.resolve import lookup, resolve_function
from codequorum.lsp.commands.run_dynamic import run_arrived

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


def version_of(item: c.VersionInput, origin: str) -> Version:
    return Version(
        code=item.code,
        origin=origin,  # type: ignore[arg-type]
        label=item.label or "",
        provider=item.provider,
        model=item.model,
        temperature=item.temperature,
        seed=item.seed,
    )


def versions_from(value: Any, origin: str) -> list[Version]:
    """Versions from JSON read in a file: code strings or ``{code, provider, model}``."""
    out: list[Version] = []
    for i, item in enumerate(value if isinstance(value, list) else [value]):
        if isinstance(item, str):
            out.append(Version(code=item, origin=origin))  # type: ignore[arg-type]
        elif isinstance(item, dict) and isinstance(item.get("code"), str):
            t, seed = item.get("temperature"), item.get("seed")
            out.append(
                version_of(
                    c.VersionInput(
                        code=item["code"],
                        provider=text_or_none(item.get("provider")),
                        model=text_or_none(item.get("model")),
                        temperature=float(t) if isinstance(t, int | float) else None,
                        seed=seed if isinstance(seed, int) else None,
                        label=str(item.get("label") or ""),
                    ),
                    origin,
                )
            )
        else:
            raise CommandError(f"version {i + 1} is neither a string nor an object with 'code'")
    return out


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


async def store_versions(
    ls: Host, target: c.FunctionArgs, command: str, versions: list[Version]
) -> c.StoreResult:
    snapshot, entry = await resolve_function(lookup(ls), target, command,
                                             required=target.qualified_name is None)
    name = entry.qualified_name if entry else target.qualified_name
    assert name is not None and snapshot.language is not None
    key = ls.file_key(target.uri)
    engine = ls.engine_for(target.uri)
    try:
        ids = await engine.run(engine.add_sync, key, snapshot.language, name, versions)
    except Exception as exc:
        raise CommandError(f"{command}: cannot store the versions: {exc}") from exc
    total = len(await engine.run(engine.versions_sync, key, name))
    ls.refresh(target.uri)
    ls.in_background(run_arrived(ls, target.uri, name, snapshot.language),
                     "running the new versions")
    return c.StoreResult(uri=target.uri, qualified_name=name, added=len(set(ids)), total=total)


def read_version_file(path: Path) -> list[Version]:
    """Versions from a file: JSON or JSON Lines of ``{"code"}`` or ``{"prompt",
    "completion"}`` objects or code strings, or plain code (one version per file). Sample
    sets (rows with ``samples``) are left to
    :func:`~codequorum.ingest.importing.read_candidates`."""
    text = path.read_text(encoding="utf-8", errors="replace")
    stripped = text.lstrip()
    items: list[Any] = []
    if stripped.startswith("[") or stripped.startswith("{"):
        deep = json_depth_problem(text)
        if deep is not None:
            raise CommandError(f"{path}: {deep}")
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
            lines = [ln for ln in text.splitlines() if ln.strip()]
            try:
                items = [json.loads(ln) for ln in lines]
            except json.JSONDecodeError as exc:
                raise CommandError(f"{path}: neither JSON nor JSON Lines ({exc})") from exc
        if data is not None:
            items = data if isinstance(data, list) else [data]
    else:
        return [Version(code=text, origin="imported", label=path.name)]
    out: list[Version] = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("code"), str):
            out.extend(versions_from([item], "imported"))
        elif isinstance(item, dict) and isinstance(item.get("completion"), str):
            prompt = str(item["prompt"]) if isinstance(item.get("prompt"), str) else ""
            out.append(Version(code=prompt + item["completion"], origin="imported"))
        elif isinstance(item, str):
            out.append(Version(code=item, origin="imported"))
    return out


def imported_versions(name: str, data: bytes, language: str, task_id: str | None,
                      entry_point: str | None) -> list[Version]:
    """The versions in a file's ``data`` (already read and bounded), parsed from a private
    copy named ``name``, so what is parsed is what was checked."""
    from codequorum.ingest.importing import read_candidates

    with tempfile.TemporaryDirectory(prefix="codequorum-import-") as folder:
        copy = Path(folder) / (name or "versions.jsonl")
        copy.write_bytes(data)
        found = read_version_file(copy)
        if found:
            return found
        candidates, _ = read_candidates(copy, language, task_id=task_id,
                                        entry_point=entry_point)
    return [dataclasses.replace(item.version, origin="imported") for item in candidates]
