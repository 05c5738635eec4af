"""The editor's reasons for changes (``codequorum/editReason``) are kept for a bounded
number of documents and changes: a client naming a million URIs holds no more than that."""

from __future__ import annotations

from typing import Any, cast

from codequorum.lsp.editor_watch import REASON_DOCUMENTS, REASONS_KEPT, Watch


def test_reasons_are_kept_for_the_latest_documents_and_changes() -> None:
    watch = Watch(cast(Any, None), cast(Any, None))  # neither the client nor a folder
    for n in range(REASON_DOCUMENTS * 4):
        watch.reason(f"file:///w/{n}.py", 1, "undo")
    assert len(watch._reasons) == REASON_DOCUMENTS
    assert watch._reason(f"file:///w/{REASON_DOCUMENTS * 4 - 1}.py", 1) == "undo"
    assert watch._reason("file:///w/0.py", 1) is None  # the oldest document went first
    for version in range(REASONS_KEPT * 2):
        watch.reason("file:///w/many.py", version, "redo")
    assert watch._reason("file:///w/many.py", REASONS_KEPT * 2 - 1) == "redo"
    assert watch._reason("file:///w/many.py", 0) is None
