"""Running versions: test inputs, examples, the sandbox and the runs."""
