"""`python -m codequorum` runs the command line."""

from codequorum.cli import main

raise SystemExit(main())
