"""Where a daemon is found (router.client.locate): the config found from a directory, the
socket named for it (in Python and in the shell shims, computed both ways)."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
from pathlib import Path

import pytest

from router.client import locate, presence, trust, wire
from testing.paths import REPO


def write(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    file = directory / "kroute.toml"
    file.write_text(text)
    return file


def test_find_config_walks_up(tmp_path: Path) -> None:
    file = write(tmp_path, "")
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    assert locate.find_config(deep) == str(file)
    assert locate.find_config(tmp_path) == str(file)


def test_find_config_finds_the_nearest(tmp_path: Path) -> None:
    write(tmp_path, "")
    inner = write(tmp_path / "a", "")
    (tmp_path / "a" / "b").mkdir()
    assert locate.find_config(tmp_path / "a" / "b") == str(inner)


def test_find_config_ignores_a_directory_named_like_the_file(tmp_path: Path) -> None:
    (tmp_path / "sub" / "kroute.toml").mkdir(parents=True)
    found = locate.find_config(tmp_path / "sub")
    assert found is None or Path(found).is_file()
    assert found != str(tmp_path / "sub" / "kroute.toml")


def test_find_config_none(tmp_path: Path) -> None:
    deep = tmp_path / "x" / "y"
    deep.mkdir(parents=True)
    found = locate.find_config(deep)
    # tmp_path has no kroute.toml; anything found lies above the temp tree
    assert found is None or tmp_path.resolve() not in Path(found).resolve().parents


@pytest.mark.process
@pytest.mark.parametrize("runtime", ["xdg", "none", "deep"])
def test_the_shims_name_the_socket_as_python_does(
    tmp_path: Path, short_tmp: Path, runtime: str
) -> None:
    repo = (tmp_path / "my repo").resolve()
    write(repo, "")
    (repo / "src").mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "CLAUDE_PROJECT_DIR": str(repo / "src"),
    }
    if runtime == "xdg":
        env["XDG_RUNTIME_DIR"] = str(short_tmp / "run")
    elif runtime == "deep":  # too long for a socket path: both fall back to /tmp
        env["XDG_RUNTIME_DIR"] = str(tmp_path / ("d" * 90))
    places = locate.places(repo, repo / "kroute.toml", env)
    assert shim_finds(env).stdout == ""  # no daemon has named this root: no socket to try
    trust.private_dir(places.runtime)
    presence.write_root(places, repo, repo / "kroute.toml")  # as a starting daemon does
    try:
        assert shim_finds(env).stdout == str(places.socket)
        expected = locate.socket(repo, repo / "kroute.toml", env, os.getuid())
        assert shim_finds(env).stdout == expected
    finally:
        presence.root_file(places).unlink()


def shim_finds(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run `kroute_socket` of the shims; its exit status says whether they would use it."""
    return subprocess.run(
        [
            "sh",
            "-c",
            '. "$0"; kroute_socket; status=$?; printf %s "$found"; exit $status',
            str(REPO / "hooks" / "lib.sh"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=10,
    )


@pytest.mark.process
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to create another user's files")
@pytest.mark.parametrize("owned_by_other", ["directory", "socket", "both"])
def test_the_shims_use_only_a_socket_of_ones_own(
    tmp_path: Path, short_tmp: Path, owned_by_other: str
) -> None:
    """Defect 1: a socket (or its directory) another user owns sends the shim to its slow
    path (kroute-hook), whose client names the problem; its curl never connects."""
    other_uid = 1000
    repo = (tmp_path / "repo").resolve()
    write(repo, "")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "CLAUDE_PROJECT_DIR": str(repo),
        "XDG_RUNTIME_DIR": str(short_tmp / "run"),
    }
    places = locate.places(repo, repo / "kroute.toml", env)
    places.runtime.mkdir(parents=True, mode=0o700)
    presence.write_root(places, repo, repo / "kroute.toml")  # as the squatter would
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(places.socket))
        assert shim_finds(env).returncode == 0  # one's own: used
        if owned_by_other in ("directory", "both"):
            os.chown(places.runtime, other_uid, other_uid)
            os.chmod(places.runtime, 0o777)
        if owned_by_other in ("socket", "both"):
            os.chown(places.socket, other_uid, other_uid)
        found = shim_finds(env)
        assert (found.returncode, found.stdout) == (1, str(places.socket))
        named = shim_finds({**env, "KROUTE_SOCKET": str(places.socket)})  # as installed
        assert named.returncode == 1


def test_the_shim_names_the_headers_as_the_client_does() -> None:
    runner = (REPO / "hooks" / "run").read_text()
    assert f'-H "{wire.TIMEOUT_HEADER}: $wait"' in runner
    assert f'-H "{wire.VERSION_HEADER}: $KROUTE_VERSION"' in runner


@pytest.mark.parametrize("runtime", ["", "short", "x" * 120])
def test_the_socket_is_where_paths_puts_it(tmp_path: Path, runtime: str) -> None:
    """Including the fallback to /tmp when the runtime dir is too deep for a socket path."""
    env = {"XDG_RUNTIME_DIR": str(tmp_path / runtime)} if runtime else {}
    root, config = tmp_path / "repo", tmp_path / "repo" / "kroute.toml"
    uid = os.getuid()
    places = locate.places(root, config, env, uid)
    name = locate.key(str(root), str(config))
    assert name == places.key
    assert os.path.join(locate.socket_dir(env, uid, name), f"{name}.sock") == str(places.socket)


def test_find_config_walks_up_from_a_relative_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "kroute.toml").write_text("")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "a")
    assert locate.find_config("b") == str(tmp_path / "kroute.toml")
    assert locate.find_config(str(deep) + "/") == str(tmp_path / "kroute.toml")


def test_find_config_skips_a_directory_named_like_the_file(tmp_path: Path) -> None:
    (tmp_path / "sub" / "kroute.toml").mkdir(parents=True)
    found = locate.find_config(str(tmp_path / "sub"))
    assert found is None or Path(found).is_file()


def test_a_daemon_key_is_the_sha256_of_its_root_and_config() -> None:
    # computed without hashlib (which loads OpenSSL), the same digest as ever: a daemon
    # started before and a client started after name the same socket
    root, config = Path("/srv/repo"), Path("/srv/repo/kroute.toml")
    expected = hashlib.sha256(f"{root}\0{config}".encode()).hexdigest()[:12]
    assert locate.key(root, config) == expected
    assert locate.key(root, None) == hashlib.sha256(f"{root}\0".encode()).hexdigest()[:12]
