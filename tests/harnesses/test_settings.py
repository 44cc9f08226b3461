"""Each agent harness's settings (router.harnesses.settings) against the shims shipped for it:
one shim per event its settings install, running that harness and event."""

from __future__ import annotations

import pytest

from router.harnesses import opening, registry
from testing.paths import REPO


@pytest.mark.parametrize("name", sorted(registry.AGENTS))
def test_every_event_installed_has_a_shim_that_runs_it(name: str) -> None:
    settings = registry.AGENTS[name]
    for event, _, shim in settings.events:
        text = (REPO / "hooks" / name / shim).read_text(encoding="utf-8")
        assert f'exec "${{0%/*}}/../run" {name} {event}\n' in text, (name, shim)


@pytest.mark.parametrize("name", sorted(registry.AGENTS))
def test_the_events_installed_are_those_the_harness_answers_or_observes(name: str) -> None:
    installed = {event for event, _, _ in registry.AGENTS[name].events}
    answered = set(registry.BY_NAME[name].EVENTS) | set(opening.EVENTS.get(name, ()))
    assert installed == answered


def test_the_shipped_shims_are_exactly_the_events_installed() -> None:
    for name, settings in registry.AGENTS.items():
        shipped = {p.name for p in (REPO / "hooks" / name).iterdir()}
        assert shipped == {shim for _, _, shim in settings.events}, name


def test_git_and_pipe_install_no_settings() -> None:
    assert registry.BY_NAME["git"].SETTINGS is None and registry.BY_NAME["pipe"].SETTINGS is None
    assert set(registry.AGENTS) == {"claude", "codex", "gemini"}
