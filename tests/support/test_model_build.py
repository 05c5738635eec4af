"""The local model server is built for a portable x86-64 target (scripts/real-model.sh).

A build for the building machine's CPU carries AVX-512 or AMX instructions where that CPU
reports them; a machine that reports them and traps them (some virtual machines) kills the
server with SIGILL on its first completion. The installed library is disassembled and held to
AVX2 at most: no ``zmm`` (AVX-512) or ``tmm`` (AMX tile) register, no tile instruction.
"""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.real_model import Unavailable, server_python

pytestmark = pytest.mark.real_model

#: An AVX-512 or AMX operand or mnemonic in objdump's AT&T output.
_WIDE = re.compile(r"%zmm\d|%tmm\d|\b(?:ldtilecfg|sttilecfg|tileloadd|tdpb\w*)\b")


def _libraries() -> list[Path]:
    try:
        python = server_python()
    except Unavailable as exc:
        pytest.skip(f"no local model: {exc}")
    found = subprocess.run(
        [str(python), "-c", "import llama_cpp, pathlib; "
         "print(pathlib.Path(llama_cpp.__file__).parent)"],
        capture_output=True, text=True, timeout=120, check=True).stdout.strip()
    libraries = sorted(p for p in (Path(found) / "lib").glob("*.so*") if "ggml" in p.name)
    assert libraries, f"no ggml library under {found}/lib"
    return libraries


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 only")
@pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump (binutils) is missing")
def test_the_model_library_uses_avx2_at_most() -> None:
    for library in _libraries():
        listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(library)],
                                 capture_output=True, text=True, timeout=300, check=True).stdout
        wide = [line.strip() for line in listing.splitlines() if _WIDE.search(line)]
        assert not wide, f"{library.name} has {len(wide)} AVX-512/AMX instructions: {wide[:3]}"
