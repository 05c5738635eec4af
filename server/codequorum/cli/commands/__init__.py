"""Subcommands of the ``codequorum`` command line, one module each.

A command module exposes ``register(subparsers) -> None``: it adds its parser with
``subparsers.add_parser(name, ...)`` and sets ``func`` (``func(args) -> int``, the exit
status) with ``parser.set_defaults(func=...)``. ``codequorum.cli.main`` finds the modules here by
name, so adding a command needs no change anywhere else.
"""
