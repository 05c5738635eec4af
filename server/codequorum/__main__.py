"""`python -m codequorum` runs the command line."""

from codequorum.cli.main import main

raise SystemExit(main())
