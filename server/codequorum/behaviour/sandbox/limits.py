"""Resource limits for one sandboxed candidate run."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Limits:
    """What one candidate child may use.

    ``wall_seconds`` and ``cpu_seconds`` cover the child from start to exit (all tests
    together); ``test_seconds`` (None: off) is the wall-clock budget of each test, enforced
    in the child: a test that overruns it gets outcome ``Timeout`` and the child goes on
    with the next test (the whole-run limits still apply); ``memory_mb`` is the
    address-space limit; ``output_bytes`` caps everything the candidate prints (captured
    ``sys.stdout``/``sys.stderr`` and the raw file descriptors); ``max_open_files`` and
    ``file_size_bytes`` map to RLIMIT_NOFILE and RLIMIT_FSIZE.
    """

    wall_seconds: float = 10.0
    cpu_seconds: float = 10.0
    memory_mb: int = 1024
    output_bytes: int = 1_000_000
    max_open_files: int = 64
    file_size_bytes: int = 10_000_000
    test_seconds: float | None = None

    def __post_init__(self) -> None:
        if self.wall_seconds <= 0 or self.cpu_seconds <= 0:
            raise ValueError("time limits must be positive")
        if self.test_seconds is not None and not self.test_seconds > 0:
            raise ValueError("test_seconds must be positive (or None)")
        if self.memory_mb < 64:
            raise ValueError("memory_mb must be at least 64 (the interpreter needs it)")
        if self.output_bytes < 0 or self.file_size_bytes < 0:
            raise ValueError("byte limits must not be negative")
        if self.max_open_files < 16:
            raise ValueError("max_open_files must be at least 16")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (sent to the child)."""
        return asdict(self)
