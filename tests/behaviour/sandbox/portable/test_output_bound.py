"""One huge raw write to the guest's stderr: the version ends at its output limit, as in the
strict sandbox, and no process on the host side holds more than the guest's own memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from codequorum.behaviour.sandbox.portable import channel, interpreter

#: The guest's memory cap and the size of its one write (more than wasmtime's own
#: ``fd_write`` takes: 128 MiB).
CAP_MB = 512
WRITE_MB = 400
#: What a host process holds beside its guest's memory (the interpreter, wasmtime, the
#: mapped module): a copy of the write would add ``WRITE_MB``.
SLACK_MB = 200

SCRIPT = textwrap.dedent("""
    import json, os, resource, sys
    from codequorum.behaviour.sandbox.limits import Limits
    from codequorum.behaviour.sandbox.portable import processes
    from codequorum.behaviour.sandbox.supervisor import run_candidate
    from codequorum.core.model import TestCase

    code = ("import os\\ndef f(n):\\n    data = b'x' * (%d << 20)\\n"
            "    return os.write(2, data)\\n")
    result = run_candidate(code, [TestCase("call", args=(1,)), TestCase("call", args=(2,))],
                           "f", Limits(memory_mb=%d, wall_seconds=60, cpu_seconds=60),
                           sandbox="portable", start_method="exec")
    processes.shutdown()
    while True:  # every guest's process reaped, so that its peak is counted
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    print(json.dumps({
        "status": result.status, "exc": [t.exc_type for t in result.tests],
        # this process's own peak (ru_maxrss would carry the peak of the process it was
        # forked from across exec)
        "self_mb": int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) >> 10,
        "children_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >> 10}))
""")


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB and VmHWM are Linux's")
def test_a_huge_raw_write_to_stderr_ends_at_the_output_limit_in_bounded_memory(
        either_channel: str) -> None:
    compiled = interpreter.compiled_module()  # prepared here, not in the process measured
    interpreter.harness_bundle(compiled)
    env = {**os.environ}
    if either_channel == channel.PROCESS:
        env[channel.FORCE] = channel.PROCESS
    done = subprocess.run([sys.executable, "-c", SCRIPT % (WRITE_MB, CAP_MB)], env=env,
                          capture_output=True, text=True, check=True, timeout=300)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["status"] == "output-limit"
    assert found["exc"] == ["OutputLimitExceeded"]
    # the host (its own process, or the runner and each guest's process) held the guest's
    # memory at most, never a copy of the write
    assert found["children_mb"] < CAP_MB + SLACK_MB, found
    assert found["self_mb"] < SLACK_MB + 100, found
