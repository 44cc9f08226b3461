"""A session through real hook payloads, as a harness runs the installed hooks, with a real
daemon: a route, a read of an offered document, a read of one no route offered. `kroute
shadow stats` and `kroute shadow misses` report both, and the HTML report shows them in a
real browser (headless Chromium: a screenshot, and the page's layout measured in it)."""

from __future__ import annotations

import json
import os
import re
import stat
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from router.client import locate
from router.harnesses import printed
from router.logbook import opened, page, shadow
from testing.paths import CHROMIUM, DEMO, FIXTURES, REPO
from testing.process import kroute
from testing.records import record
from testing.wait import eventually

pytestmark = pytest.mark.process

BIN = Path(sys.executable).parent
PAYLOADS = FIXTURES / "hook_payloads"
PROMPT = "the webhook signing key leaked in a screenshot, rotate it today"
OFFERED = "docs/how-to/rotate-webhook-signing-key.md"
UNPOINTED = "docs/decisions/0001-postgres-event-store.md"
BAR_COLOUR = (0x4F, 0x7C, 0xAC)  # page.STYLE's .bar fill


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO).resolve()


def payload(name: str, repo: Path) -> str:
    return (PAYLOADS / name).read_text().replace("REPO", str(repo))


def installed(repo: Path, event: str, tool: str | None = None) -> str:
    """Return kroute's command for `event` in the installed settings, checking that its
    matcher (a regular expression, as Claude Code reads it) selects `tool`."""
    settings = json.loads((repo / ".claude" / "settings.json").read_text())
    for group in settings["hooks"][event]:
        for item in group["hooks"]:
            if item["command"].startswith("KROUTE_HOOK_BIN="):
                if tool is not None:
                    assert re.fullmatch(group["matcher"], tool), (group["matcher"], tool)
                return str(item["command"])
    raise AssertionError(f"no kroute hook for {event}")


def run(command: str, data: str, repo: Path) -> subprocess.CompletedProcess[str]:
    """Run an installed hook command as Claude Code does: `sh -c`, the payload on stdin."""
    env = {
        **os.environ,
        "PATH": f"{BIN}:/usr/bin:/bin",
        "CLAUDE_PROJECT_DIR": str(repo),
        "KROUTE_HOOK_DEADLINE": "10",  # a busy test machine: behaviour, not timing
    }
    return subprocess.run(
        ["sh", "-c", command], input=data, capture_output=True, text=True, env=env, cwd=repo
    )


def key(repo: Path) -> str:
    return locate.key(repo, repo / "kroute.toml")


def reads(repo: Path) -> list[dict[str, Any]]:
    return list(opened.read(shadow.log_dir(Path(os.environ["KROUTE_HOME"]), key(repo))))


def test_a_session_s_reads_are_joined_to_its_route_and_reported(repo: Path, tmp_path: Path) -> None:
    assert kroute("install", "claude", cwd=repo).returncode == 0
    post = installed(repo, "PostToolUse", tool="Read")
    assert not re.fullmatch(
        json.loads((repo / ".claude" / "settings.json").read_text())["hooks"]["PostToolUse"][0][
            "matcher"
        ],
        "Edit",
    )
    assert kroute("start", cwd=repo).returncode == 0

    prompt = run(
        installed(repo, "UserPromptSubmit"), payload("user_prompt_submit.json", repo), repo
    )
    assert prompt.returncode == 0 and prompt.stdout.startswith(printed.HEADER)
    assert OFFERED in prompt.stdout and UNPOINTED not in prompt.stdout
    for name in (
        "post_tool_use_read.json",
        "post_tool_use_read_unpointed.json",
        "post_tool_use_read_source.json",
    ):
        result = run(post, payload(name, repo), repo)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), name
    assert eventually(lambda: len(reads(repo)) == 2)
    followed, unpointed = reads(repo)
    assert (followed["path"], followed["offer"]["rank"]) == (OFFERED, 1)
    assert (unpointed["path"], unpointed["offer"]) == (UNPOINTED, None)
    (route,) = shadow.read(shadow.log_dir(Path(os.environ["KROUTE_HOME"]), key(repo)))
    offered = [p["path"] for p in route["pointers"]]
    assert offered[0] == OFFERED and len(offered) >= 2

    # kroute shadow stats: one of the offered pointers followed, one document read unpointed
    stats = json.loads(kroute("shadow", "stats", "--json", cwd=repo).stdout)["followed"]
    assert stats["all"] == {
        "offered": len(offered),
        "followed": 1,
        "followed_rate": round(1 / len(offered), 4),
        "unpointed": 1,
    }
    assert stats["by_version"].keys() == {route["engine_version"]}
    assert stats["by_fingerprint"].keys() == {route["catalog_fingerprint"]}
    text = kroute("shadow", "stats", cwd=repo).stdout.splitlines()
    head = text.index(next(line for line in text if line.split()[:2] == ["engine", "offered"]))
    assert text[head + 1].split() == [
        route["engine_version"],
        str(len(offered)),
        "1",
        f"{100 / len(offered):.1f}%",
        "1",
    ]
    assert any(line.startswith("pointers followed: ") for line in text)

    # kroute shadow misses: the document read without a pointer, with the prompt before it,
    # and the pointers never followed
    misses = json.loads(kroute("shadow", "misses", "--json", cwd=repo).stdout)
    assert [(m["path"], m["tasks"]) for m in misses["unpointed"]] == [(UNPOINTED, [PROMPT])]
    assert sorted(m["path"] for m in misses["unfollowed"]) == sorted(offered[1:])
    shown = kroute("shadow", "misses", cwd=repo).stdout
    assert f"after: {PROMPT}" in shown and "pointers never followed: " in shown

    # the HTML report, private like the log
    report = tmp_path / "report.html"
    assert kroute("shadow", "report", "--html", str(report), cwd=repo).returncode == 0
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    html = report.read_text()
    for section in ("Pointers followed", "Documents", "Read without a pointer", "Silent prompts"):
        assert f"<h2>{section}</h2>" in html
    assert f"1 of {len(offered)} pointers offered in 1 session followed" in html
    if CHROMIUM is None:
        pytest.skip(
            "no headless Chromium on this machine (apt-get install chromium-headless-shell)"
        )
    seen = in_browser(report, tmp_path)
    assert seen["sections"] >= 8
    assert followed["id"] in seen["followed_rows"] and unpointed["id"] in seen["unpointed_rows"]
    assert seen["wrapped_times"] == [] and seen["times"] >= 1
    assert seen["overflow"] <= 0  # wide tables scroll in their box, the page does not
    assert seen["single_bar_version_plots"] == []
    png = screenshot(report, tmp_path / "report.png")
    width, height, colours = pixels(png)
    assert (width, height) == (1280, 2400)
    assert BAR_COLOUR in colours  # the latency histogram drawn
    assert len(colours) > 50  # text, tables and a chart: not a blank or error page


def test_codex_and_gemini_reads_through_the_shipped_shims(repo: Path) -> None:
    assert kroute("start", cwd=repo).returncode == 0
    hooks = REPO / "hooks"
    env = {
        **os.environ,
        "PATH": f"{BIN}:/usr/bin:/bin",
        "GEMINI_PROJECT_DIR": str(repo),
        "KROUTE_HOOK_DEADLINE": "10",
    }

    def shim(name: str, data: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(hooks / name)], input=data, capture_output=True, text=True, env=env, cwd=repo
        )

    assert (
        "additionalContext"
        in shim("codex/user-prompt-submit", payload("codex_user_prompt_submit.json", repo)).stdout
    )
    read = shim("codex/post-tool-use", payload("codex_post_tool_use_bash_read.json", repo))
    assert (read.returncode, read.stdout) == (0, "")
    shim("gemini/before-agent", payload("gemini_before_agent.json", repo))
    shim("gemini/after-tool", payload("gemini_after_tool_read_file.json", repo))
    assert eventually(lambda: len(reads(repo)) == 3)
    assert {(r["source"], r["path"], r["offer"] is not None) for r in reads(repo)} == {
        ("codex/PostToolUse", OFFERED, True),
        ("codex/PostToolUse", UNPOINTED, False),
        ("gemini/AfterTool", OFFERED, True),
    }


def test_a_read_without_a_daemon_prints_nothing_and_waits_for_no_load(repo: Path) -> None:
    from router.integrations import hook

    env = {"KROUTE_HOOK_BUDGET": "60", "KROUTE_HOOK_DEADLINE": "1"}
    window = hook.window("PostToolUse", env, now=100.0)
    assert window.longest == window.until == 101.0  # never the 60 s a prompt may wait
    garbage = subprocess.run(
        [str(REPO / "hooks" / "claude" / "post-tool-use")],
        input=(PAYLOADS / "garbage.bin").read_bytes(),
        capture_output=True,
        env={**os.environ, "PATH": f"{BIN}:/usr/bin:/bin", "CLAUDE_PROJECT_DIR": str(repo)},
        cwd=repo,
    )
    assert (garbage.returncode, garbage.stdout, garbage.stderr) == (0, b"", b"")


def test_the_report_lays_out_in_a_browser(tmp_path: Path) -> None:
    """Many records, long prompts, three engine versions and a catalog edit: no time wraps,
    the page does not overflow, every plot across versions has a bar per version."""
    if CHROMIUM is None:
        pytest.skip(
            "no headless Chromium on this machine (apt-get install chromium-headless-shell)"
        )
    pasted = "Traceback: " + " ".join(f"frame{n}/module_{n}.py:{n * 7}" for n in range(60))
    routes, opens = [], []
    for n in range(40):
        version, catalog = ("0.9.0", "f1") if n < 15 else ("0.10.0", "f1" if n < 30 else "f2")
        task = [pasted, "retry a failed webhook delivery", "https://example.invalid/" + "x" * 90][
            n % 3
        ]
        at = f"2026-03-{1 + n // 10:02d}T10:{n:02d}:00.000Z"
        routes.append(record(task, ["A", f"B{n % 4}"] if n % 5 else [], version=version,
                             fingerprint=catalog, session=f"s{n}", at=at))  # fmt: skip
        offer = {"at": at, "engine_version": version, "catalog_fingerprint": catalog, "rank": 1}
        opens.append(read_line(f"s{n}", "A" if n % 2 else "Z", offer if n % 2 else None, at))
    routes.append(record("x", ["A"], version="1.0.0-rc.1", fingerprint="f2", session="t"))
    report = tmp_path / "report.html"
    report.write_text(page.report(routes, opens, "layout"))
    seen = in_browser(report, tmp_path)
    assert seen["times"] >= 25 and seen["wrapped_times"] == []
    assert seen["overflow"] <= 0
    assert seen["single_bar_version_plots"] == []
    assert seen["version_plots"] >= 4  # by engine and by catalog version
    assert "Z" in seen["unpointed_rows"] and "A" in seen["followed_rows"]


def read_line(session: str, entry: str, offer: dict[str, Any] | None, at: str) -> dict[str, Any]:
    return opened.lifted(
        {
            "schema": opened.SCHEMA, "at": at, "engine_version": "0.10.0",
            "catalog_fingerprint": "f1", "source": "claude/PostToolUse", "session": session,
            "tool": "Read", "id": entry, "path": f"docs/{entry}.md", "file": f"docs/{entry}.md",
            "kind": "decision", "offer": offer,
        }
    )  # fmt: skip


# -- the browser -------------------------------------------------------------------------------

# Measures the page as Chromium laid it out, into <pre id="probe">: the sections, the rows of
# the followed and read-without-a-pointer tables, every cell holding a time and on how many
# lines it was drawn, how far the page overflows the window, and version plots of one bar.
PROBE = """<pre id="probe"></pre><script>
const lines = el => { const r = document.createRange(); r.selectNodeContents(el);
  return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; };
const section = name => { const h = [...document.querySelectorAll('h2')]
  .find(x => x.textContent === name); let el = h && h.nextElementSibling; const out = [];
  while (el && el.tagName !== 'H2') { el.querySelectorAll('tbody tr').forEach(
    tr => { if (tr.offsetHeight > 0) out.push(tr.cells[0].textContent); }); el = el.nextElementSibling; }
  return out; };
const times = [...document.querySelectorAll('td')]
  .filter(td => /^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d/.test(td.textContent));
document.getElementById('probe').textContent = JSON.stringify({
  sections: document.querySelectorAll('h2').length,
  followed_rows: section('Documents').filter(x => x),
  unpointed_rows: section('Read without a pointer'),
  times: times.length,
  wrapped_times: times.filter(td => lines(td) > 1).map(td => td.textContent),
  overflow: document.documentElement.scrollWidth - window.innerWidth,
  version_plots: [...document.querySelectorAll('figcaption')]
    .filter(c => / by (engine|catalog) version/.test(c.textContent)).length,
  single_bar_version_plots: [...document.querySelectorAll('figure')]
    .filter(f => / by (engine|catalog) version/.test(f.querySelector('figcaption').textContent)
      && f.querySelectorAll('rect.bar').length < 2)
    .map(f => f.querySelector('figcaption').textContent),
});
</script>"""


def chromium(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--proxy-server=127.0.0.1:9",  # any network request would fail
            "--window-size=1280,2400", "--hide-scrollbars", *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip


def in_browser(report: Path, tmp_path: Path) -> dict[str, Any]:
    """Return what PROBE measured of the report in Chromium: a copy of the page with the
    probe appended and its policy (which forbids scripts) taken out."""
    html = report.read_text()
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    probed = tmp_path / "probed.html"
    probed.write_text(html.replace("</body>", PROBE + "</body>"))
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", probed.as_uri(), tmp_path=tmp_path)
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom.stdout, re.S)
    assert found and found.group(1), dom.stderr[-2000:]
    result: dict[str, Any] = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    return result


def screenshot(report: Path, shot: Path) -> Path:
    """Return a screenshot of the report as it is (its policy in force)."""
    done = chromium(f"--screenshot={shot}", report.as_uri(), tmp_path=shot.parent)
    assert shot.is_file(), done.stderr[-2000:]
    return shot


def pixels(png: Path) -> tuple[int, int, set[tuple[int, int, int]]]:
    """Return the width, height and set of colours of an 8-bit RGB or RGBA PNG (decoded
    here, with numpy for the rows it can take whole: no imaging library is a dependency)."""
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        header = body if kind == b"IHDR" else header
        chunks += body if kind == b"IDAT" else b""
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6)
    size = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(chunks), dtype=np.uint8).reshape(height, -1)
    image = np.zeros((height, width * size), dtype=np.uint8)
    above = np.zeros(width * size, dtype=np.uint8)
    for y in range(height):
        method, line = int(raw[y, 0]), raw[y, 1:]
        if method == 0:
            row = line.copy()
        elif method == 1:  # each byte plus the one a pixel to its left: a running sum
            row = (line.reshape(width, size).astype(np.uint64).cumsum(axis=0) % 256).astype(
                np.uint8
            )
            row = row.reshape(-1)
        elif method == 2:
            row = line + above  # uint8: wraps as the format says
        else:
            row = np.frombuffer(_unfilter(method, bytearray(line), bytes(above), size), np.uint8)
        image[y], above = row, row
    rgb = image.reshape(height, width, size)[:, :, :3].astype(np.uint32)
    packed = np.unique((rgb[:, :, 0] << 16) | (rgb[:, :, 1] << 8) | rgb[:, :, 2])
    colours = {(int(c) >> 16, (int(c) >> 8) & 0xFF, int(c) & 0xFF) for c in packed}
    return width, height, colours


def _unfilter(kind: int, row: bytearray, above: bytes, size: int) -> bytearray:
    """Return a row of the two filters that take each byte after the one before (3: the
    average of left and up, 4: Paeth)."""
    for i in range(len(row)):
        left = row[i - size] if i >= size else 0
        up, corner = above[i], above[i - size] if i >= size else 0
        if kind == 3:
            row[i] = (row[i] + (left + up) // 2) & 0xFF
        else:
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            row[i] = (
                row[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)
            ) & 0xFF
    return row
