"""Where versions of a function come from, and where they are kept.

- :mod:`~codequorum.sources.store`: the SQLite sample store (``SampleStore``).
- :mod:`~codequorum.sources.prompting`: the chat prompt that asks for a function again.
- :mod:`~codequorum.sources.openai_compat`: the OpenAI-compatible client (``regenerate``).
- :mod:`~codequorum.sources.extract`: one validated function out of a model's answer.
- :mod:`~codequorum.sources.importing`: versions from files, lists and directories.

Submodules are imported on use so that, say, opening the store never loads the HTTP client.
"""
