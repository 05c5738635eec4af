"""``codequorum.importVersionFile``: store versions read from a file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from codequorum.core.errors import UserError
from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import IMPORT_VERSION_FILE, CommandError, command
from codequorum.lsp.commands.store import imported_versions, store_versions
from codequorum.lsp.files import MAX_IMPORT_BYTES, RefusedFile, bounded_text, read_inside

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


@command(c.ImportVersionFileArgs)
async def import_version_file_command(ls: Host, args: c.ImportVersionFileArgs) -> c.StoreResult:
    """Store versions read from a file (origin ``imported``): one inside a workspace folder,
    read here, or the text of one the user picked, read by the client
    (:mod:`codequorum.lsp.files`)."""
    target = args
    if not args.path and args.content is None:
        raise CommandError(f"{IMPORT_VERSION_FILE}: needs the path of a sample file")
    root = ls.engine_for(target.uri).root
    path = Path(args.path or "versions.jsonl").expanduser()
    if not path.is_absolute():
        path = Path(root or Path.cwd()) / path
    try:
        data = (bounded_text(args.content, str(path), MAX_IMPORT_BYTES)
                if args.content is not None
                else await ls.engine.run(read_inside, path, ls.folders, MAX_IMPORT_BYTES))
    except RefusedFile as exc:
        raise CommandError(f"{IMPORT_VERSION_FILE}: {exc}") from None
    language = ls.snapshot(target.uri)
    lang = language.language if language and language.language else "python"
    short = (target.qualified_name or "").rsplit(".", 1)[-1] or None
    task_id = args.task_id if isinstance(args.task_id, str) else None
    try:
        versions = await ls.engine.run(imported_versions, path.name, data, lang, task_id, short)
    except UserError as exc:
        raise CommandError(f"{IMPORT_VERSION_FILE}: {exc}") from exc
    except OSError as exc:
        raise CommandError(
            f"{IMPORT_VERSION_FILE}: cannot read {path}: {exc.strerror or exc}") from exc
    if not versions:
        raise CommandError(f"{IMPORT_VERSION_FILE}: no samples in {path}")
    result = await store_versions(ls, target, IMPORT_VERSION_FILE, versions)
    result.path = str(path)
    return result
