"""The approvals file: endpoints and stores the user approved, kept outside any workspace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codequorum.core.user_dirs import config_dir
from codequorum.options.approvals import (
    Approvals,
    endpoint_identity,
    is_default_endpoint,
)


@pytest.mark.parametrize(
    ("url", "identity"),
    [
        ("https://api.openai.com/v1", "https://api.openai.com/v1"),
        ("HTTPS://API.OpenAI.com/v1/", "https://api.openai.com/v1"),
        ("http://user:secret@127.0.0.1:8080/v1?key=abc", "http://127.0.0.1:8080/v1"),
        ("http://[::1]:11434/v1", "http://[::1]:11434/v1"),
    ],
)
def test_endpoint_identity_drops_credentials_query_and_case(url: str, identity: str) -> None:
    assert endpoint_identity(url) == identity


def test_only_the_default_pair_is_sent_a_key_without_asking() -> None:
    assert is_default_endpoint("https://api.openai.com/v1/", "OPENAI_API_KEY")
    assert not is_default_endpoint("https://api.openai.com/v1", "GITHUB_TOKEN")
    assert not is_default_endpoint("https://collector.example/v1", "OPENAI_API_KEY")
    assert not is_default_endpoint("https://api.openai.com.evil.example/v1", "OPENAI_API_KEY")


def test_config_dir_follows_xdg_and_ignores_a_relative_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_dir() == tmp_path / "codequorum"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")
    assert config_dir() == Path.home() / ".config" / "codequorum"


def test_endpoint_approvals_are_per_endpoint_and_variable(tmp_path: Path) -> None:
    approvals = Approvals(tmp_path / "codequorum" / "approvals.json")
    assert not approvals.endpoint_approved("http://127.0.0.1:8000/v1", "VLLM_KEY")
    approvals.approve_endpoint("http://u:p@127.0.0.1:8000/v1/", "VLLM_KEY")
    approvals.approve_endpoint("http://127.0.0.1:8000/v1", "VLLM_KEY")  # once only
    assert approvals.endpoint_approved("http://127.0.0.1:8000/v1", "VLLM_KEY")
    assert not approvals.endpoint_approved("http://127.0.0.1:8000/v1", "GITHUB_TOKEN")
    assert not approvals.endpoint_approved("http://127.0.0.1:9000/v1", "VLLM_KEY")
    data = json.loads(approvals.path.read_text(encoding="utf-8"))
    assert data == {
        "version": 1,
        "endpoints": [{"endpoint": "http://127.0.0.1:8000/v1", "apiKeyEnv": "VLLM_KEY"}],
    }
    assert "p@" not in approvals.path.read_text(encoding="utf-8")


def test_store_approvals_need_the_same_path_and_identity(tmp_path: Path) -> None:
    approvals = Approvals(tmp_path / "approvals.json")
    store = tmp_path / "ws" / ".codequorum" / "samples.sqlite3"
    approvals.approve_store(store, "a" * 32)
    assert approvals.store_approved(store, "a" * 32)
    assert not approvals.store_approved(store, "b" * 32)
    assert not approvals.store_approved(tmp_path / "other" / "samples.sqlite3", "a" * 32)
    assert not approvals.store_approved(store, "")
    approvals.approve_store(store, "")
    assert len(json.loads(approvals.path.read_text(encoding="utf-8"))["stores"]) == 1


def test_a_hand_written_file_is_read_and_a_broken_one_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "approvals.json"
    path.write_text(
        json.dumps({"endpoints": [{"endpoint": "http://h/v1", "apiKeyEnv": "K"}], "x": 1}),
        encoding="utf-8",
    )
    approvals = Approvals(path)
    assert approvals.endpoint_approved("http://h/v1/", "K")
    approvals.approve_store(tmp_path / "s.sqlite3", "id1")
    kept = json.loads(path.read_text(encoding="utf-8"))
    assert kept["x"] == 1 and len(kept["endpoints"]) == 1 and len(kept["stores"]) == 1

    path.write_text("{not json", encoding="utf-8")
    assert not approvals.endpoint_approved("http://h/v1", "K")
    approvals.approve_endpoint("http://h/v1", "K")
    assert approvals.endpoint_approved("http://h/v1", "K")
    [aside] = tmp_path.glob("approvals.json.invalid-*")
    assert aside.read_text(encoding="utf-8") == "{not json"
