"""`python -m router ...` is `kroute ...` (the client starts daemons this way)."""

from router.cli import main

main()
