"""Start llama-cpp-python's server with llama.cpp's extra buffer types off.

Run by the model server's own interpreter (``.cache/llm-venv``), never imported by the
tests: ``python tests/support/llama_launch.py --model ... --port ...`` takes the arguments of
``python -m llama_cpp.server``.

llama.cpp repacks weights into extra buffer types (AMX tiles, AVX-512 layouts) when the CPU
reports the instructions; a virtual machine may report instructions it then traps, and the
server dies with SIGILL on its first completion. llama.cpp's own server turns this off with
``--no-repack``; llama-cpp-python's has no such option, so the model's default parameters are
changed before the server loads the model. Where the binding has no such field (an older
llama-cpp-python) the server starts as it is and says so on standard error.
"""

from __future__ import annotations

import runpy
import sys
from typing import Any


def _without_extra_buffer_types() -> bool:
    """Make every model load with ``use_extra_bufts = False``; False where the binding
    cannot."""
    import llama_cpp.llama_cpp as binding

    fields = {name for name, *_ in getattr(binding.llama_model_params, "_fields_", ())}
    if "use_extra_bufts" not in fields:
        return False
    defaults = binding.llama_model_default_params

    def params() -> Any:
        value = defaults()
        value.use_extra_bufts = False
        return value

    binding.llama_model_default_params = params
    return True


def main() -> None:
    if not _without_extra_buffer_types():
        print("llama_launch: this llama-cpp-python cannot turn extra buffer types off; "
              "starting the server as it is", file=sys.stderr)
    sys.argv[0] = "llama_cpp.server"
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
