"""``workspace/executeCommand`` handlers, one module per command (as a language server keeps
one module per request): ``analyze``, ``compare``, ``show_version``, ``add_versions``,
``import_version_file``, ``delete_versions``, ``regenerate``, ``run_dynamic``; beside them
what several share: the registry (:mod:`.registry`), finding the function a command names
(:mod:`.resolve`), storing versions (:mod:`.store`), a regeneration under way
(:mod:`.regeneration`) and a dynamic run under way (:mod:`.dynamic_run`).

Each handler takes its command's arguments class and answers its result class (see
:mod:`codequorum.lsp.contract`); :data:`.registry.HANDLERS` maps every command to its handler,
filled as this package imports each command's module.
"""

from __future__ import annotations

from codequorum.lsp.commands import (
    add_versions,
    analyze,
    compare,
    delete_versions,
    import_version_file,
    regenerate,
    run_dynamic,
    show_version,
)

#: The modules whose handlers fill :data:`HANDLERS`.
COMMAND_MODULES = (analyze, compare, show_version, add_versions, import_version_file,
                   delete_versions, regenerate, run_dynamic)

__all__ = ["COMMAND_MODULES"]
