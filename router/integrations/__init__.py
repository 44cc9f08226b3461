"""Entry points into agents and git: the hook console script, installers, the pre-commit stage."""
