"""`kroute doctor`: check and explain everything a hook needs on this machine."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from router.cli.group import emit_json, json_option, main, say
from router.core import shown
from router.integrations import doctor


@main.command(name="doctor")
@json_option
def doctor_command(as_json: bool) -> None:
    """Check everything a hook needs here: kroute.toml, kroute and kroute-hook on PATH, the
    installed hooks (runnable, of this version, trusted), the daemon, and catalog folders
    outside the roots. Exit 1 when anything needs fixing, each problem with its fix."""
    home = Path(os.environ.get("HOME", str(Path.home())))
    hook_bin = Path(sys.executable).with_name("kroute-hook")
    checks = doctor.examine(Path.cwd().resolve(), home, os.environ, hook_bin)
    problems = sum(len(c.findings) for c in checks)
    if as_json:
        emit_json({"checks": [c.as_dict() for c in checks], "problems": problems})
    else:
        for check in checks:
            if not check.findings:
                say(f"ok: {shown.flat(check.topic)}: {shown.flat(check.holds)}")
            for finding in check.findings:
                say(f"problem: {shown.flat(check.topic)}: {shown.flat(finding.problem)}")
                say(f"  fix: {shown.flat(finding.fix)}")
        click.echo(
            "no problems: the hooks can run here"
            if not problems
            else f"{problems} problem{'' if problems == 1 else 's'} to fix"
        )
    if problems:
        sys.exit(1)
