"""Whether what kroute uses is the user's alone (router.client.trust): a directory of one's
own."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from router.base.errors import DaemonError
from router.client import trust

OTHER_UID = 1000  # the second user of the test machine (cloudsdk)
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to create another user's files")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_private_dir_makes_a_0700_directory_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o277)  # cuts even the owner's write bit off a plain mkdir
    try:
        made = trust.private_dir(tmp_path / "a" / "kroute")
    finally:
        os.umask(old)
    assert made == tmp_path / "a" / "kroute"
    assert mode(made) == 0o700 and os.lstat(made).st_uid == os.geteuid()
    assert trust.private_dir(made) == made  # an existing one of one's own is used as it is


@as_root
def test_private_dir_refuses_a_directory_another_user_made_first(tmp_path: Path) -> None:
    """Defect 1: the squatter's 0777 directory is refused, and left as it is (not chmod-ed)."""
    squatted = tmp_path / "kroute"
    squatted.mkdir()
    os.chown(squatted, OTHER_UID, OTHER_UID)
    os.chmod(squatted, 0o777)
    with pytest.raises(DaemonError) as raised:
        trust.private_dir(squatted)
    message = str(raised.value)
    assert f"belongs to uid {OTHER_UID}" in message and str(squatted) in message
    assert "XDG_RUNTIME_DIR" in message  # what to do about it
    assert (os.lstat(squatted).st_uid, mode(squatted)) == (OTHER_UID, 0o777)


@as_root
def test_private_dir_refuses_another_users_directory_even_at_0700(tmp_path: Path) -> None:
    """Defect 1: owning it matters, not only its mode."""
    squatted = tmp_path / "kroute"
    squatted.mkdir(mode=0o700)
    os.chown(squatted, OTHER_UID, OTHER_UID)
    with pytest.raises(DaemonError, match=f"belongs to uid {OTHER_UID}"):
        trust.private_dir(squatted)
    assert os.lstat(squatted).st_uid == OTHER_UID


@pytest.mark.parametrize("bits", [0o777, 0o755, 0o710])
def test_private_dir_refuses_its_own_directory_open_to_others(tmp_path: Path, bits: int) -> None:
    """Defect 1: others may have put files in it (or read them): refused, not chmod-ed."""
    shared = tmp_path / "kroute"
    shared.mkdir()
    os.chmod(shared, bits)
    with pytest.raises(DaemonError, match=f"mode {bits:04o}") as raised:
        trust.private_dir(shared)
    assert "chmod 700" in str(raised.value)
    assert mode(shared) == bits


def test_private_dir_refuses_a_symlink_to_a_directory(tmp_path: Path) -> None:
    """Defect 1: a link someone planted is not followed, even to a private directory."""
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "kroute"
    link.symlink_to(real)
    with pytest.raises(DaemonError, match="symbolic link"):
        trust.private_dir(link)


def test_private_dir_refuses_a_file(tmp_path: Path) -> None:
    file = tmp_path / "kroute"
    file.write_text("")
    with pytest.raises(DaemonError, match="not a directory"):
        trust.private_dir(file)


def test_check_private_allows_the_bits_asked_for(tmp_path: Path) -> None:
    readable = tmp_path / "kroute"
    readable.mkdir()
    os.chmod(readable, 0o755)
    trust.check_private(readable, os.geteuid(), allowed=0o055)
    with pytest.raises(FileNotFoundError):
        trust.check_private(tmp_path / "missing", os.geteuid())
