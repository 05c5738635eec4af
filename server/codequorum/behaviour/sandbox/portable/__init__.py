"""The portable sandbox level: versions run in CPython on WASI under wasmtime.

``interpreter.py`` finds the guest interpreter and caches its compiled module,
``host.py`` is the process that runs one version's guest, ``guest.py`` the harness inside
it, ``endings.py`` the host's exit codes. See docs/sandbox.md, *The portable sandbox*.
"""
