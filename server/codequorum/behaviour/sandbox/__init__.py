"""Run untrusted candidates in sandboxed child processes and trace their opcodes.

Each name lives in its own module: the levels and what this machine gives in
:mod:`.isolation` (``probe``, ``require``, ``choose``, ``active_layers``), the budgets in
:mod:`.limits` (``Limits``), a candidate's run and its results in :mod:`.runner`
(``run_candidate``, ``run_candidates``, ``CandidateResult``, ``TestOutcome``,
``ModuleLoad``).
"""
