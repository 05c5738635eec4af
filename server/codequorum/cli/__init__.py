"""The command line: the parser, its commands, and the servers it starts."""
