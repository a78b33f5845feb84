"""The private truncation directory (SPEC 5.2): modes, unique sortable ids, fallback, cleanup."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from forge_tools.tools.outputs import (
    CLEANUP_INTERVAL_SECONDS,
    STAMP_NAME,
    OutputStore,
    new_id,
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_from_env_uses_the_data_dir(isolated_env: dict[str, Path]) -> None:
    store = OutputStore.from_env()
    assert store.directory == isolated_env["data"] / "tool-output"
    assert OutputStore.from_env({"XDG_DATA_HOME": "/x"}).directory == Path("/x/forge/tool-output")


def test_directory_is_0700_and_files_are_0600(tmp_path: Path) -> None:
    directory = tmp_path / "data" / "tool-output"
    store = OutputStore(directory)
    f = store.write_text("bash", "hello")
    assert _mode(directory) == 0o700
    assert _mode(f.path) == 0o600
    assert f.fallback_note is None
    assert f.path.read_text() == "hello"


def test_an_existing_loose_directory_is_made_private(tmp_path: Path) -> None:
    directory = tmp_path / "tool-output"
    directory.mkdir(mode=0o755)
    os.chmod(directory, 0o755)
    OutputStore(directory).write_text("t", "x")
    assert _mode(directory) == 0o700


def test_exact_bytes_are_kept(tmp_path: Path) -> None:
    store = OutputStore(tmp_path)
    raw = b"ok \xff\xfe not utf-8 \x00 end"
    with store.create("bash") as f:
        f.write(raw[:5])
        f.write(raw[5:])
    assert f.path.read_bytes() == raw
    assert f.bytes_written == len(raw)
    # text that was decoded with surrogateescape goes back to the same bytes
    g = store.write_text("bash", raw.decode("utf-8", "surrogateescape"))
    assert g.path.read_bytes() == raw


def test_ids_sort_in_creation_order_and_are_unique_across_threads(tmp_path: Path) -> None:
    store = OutputStore(tmp_path)
    made: list[str] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(25):
            f = store.write_text("t", "x")
            with lock:
                made.append(f.id)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == len(set(made)) == 200
    assert len(store.list()) == 200
    sequential = [new_id() for _ in range(50)]
    assert sequential == sorted(sequential)


def test_ids_from_the_same_instant_still_sort(tmp_path: Path) -> None:
    ids = [new_id(now_ns=1_000_000_000) for _ in range(5)]
    assert ids == sorted(ids) and len(set(ids)) == 5


def test_list_and_get(tmp_path: Path) -> None:
    store = OutputStore(tmp_path / "out", fallback_root=tmp_path)
    a = store.write_text("read", "1")
    b = store.write_text("bash", "22")
    (store.directory / "unrelated.txt").write_text("not ours")
    entries = store.list()
    assert [e.id for e in entries] == [a.id, b.id]
    assert [e.tool for e in entries] == ["read", "bash"]
    assert [e.size for e in entries] == [1, 2]
    assert store.get(b.id) is not None and store.get(b.id).path == b.path  # type: ignore[union-attr]
    assert store.get(b.path.name) is not None
    assert store.get("tool_nope") is None


def test_fallback_when_the_directory_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    fallback_root = tmp_path / "tmp"
    fallback_root.mkdir()
    store = OutputStore(blocker / "tool-output", fallback_root=fallback_root)
    f = store.write_text("bash", "kept anyway")
    assert f.path.read_text() == "kept anyway"
    assert f.path.parent.parent == fallback_root
    assert _mode(f.path.parent) == 0o700
    assert _mode(f.path) == 0o600
    assert f.fallback_note is not None
    assert str(blocker / "tool-output") in f.fallback_note and str(f.path.parent) in f.fallback_note
    listed = store.list()
    assert [e.id for e in listed] == [f.id] and listed[0].fallback


def test_fallback_refuses_a_foreign_symlink(tmp_path: Path) -> None:
    """A pre-made symlink where the fallback dir would go is not trusted; a fresh private dir is made."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    fallback_root = tmp_path / "tmp"
    fallback_root.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (fallback_root / f"forge-tool-output-{os.getuid()}").symlink_to(elsewhere)
    f = OutputStore(blocker / "x", fallback_root=fallback_root).write_text("t", "y")
    assert f.path.parent != elsewhere and not f.path.parent.is_symlink()
    assert list(elsewhere.iterdir()) == []


def _age(path: Path, days: float, now: float) -> None:
    t = now - days * 86400
    os.utime(path, (t, t))


def test_clean_by_age_and_dry_run(tmp_path: Path) -> None:
    store = OutputStore(tmp_path, retention_days=7)
    now = time.time()
    old = store.write_text("t", "old")
    new = store.write_text("t", "new")
    _age(old.path, 8, now)
    _age(new.path, 1, now)
    assert [e.id for e in store.clean(dry_run=True, now=now)] == [old.id]
    assert old.path.exists()
    assert [e.id for e in store.clean(now=now)] == [old.id]
    assert not old.path.exists() and new.path.exists()
    assert [e.id for e in store.clean(older_than_days=0.5, now=now)] == [new.id]


def test_cleanup_runs_at_most_hourly(tmp_path: Path) -> None:
    store = OutputStore(tmp_path / "out", retention_days=7)
    now = time.time()
    first = store.write_text("t", "a")
    _age(first.path, 10, now)
    assert [e.id for e in store.maybe_cleanup(now=now) or []] == [first.id]
    assert (store.directory / STAMP_NAME).exists()
    second = store.write_text("t", "b")
    _age(second.path, 10, now)
    assert store.maybe_cleanup(now=now + CLEANUP_INTERVAL_SECONDS - 1) is None
    assert second.path.exists()
    removed = store.maybe_cleanup(now=now + CLEANUP_INTERVAL_SECONDS + 1)
    assert removed is not None and [e.id for e in removed] == [second.id]
    assert store.list() == []


def test_the_stamp_is_shared_between_store_objects(tmp_path: Path) -> None:
    now = time.time()
    assert OutputStore(tmp_path).maybe_cleanup(now=now) == []
    assert OutputStore(tmp_path).maybe_cleanup(now=now + 10) is None


@pytest.mark.parametrize("name", ["bash", "my tool/../x", ""])
def test_tool_names_cannot_escape_the_directory(tmp_path: Path, name: str) -> None:
    store = OutputStore(tmp_path / "out")
    f = store.write_text(name, "x")
    assert f.path.parent == store.directory
    assert store.get(f.id) is not None


# -- `forge-tools outputs` -------------------------------------------------------------------------


def test_cli_list_show_clean(cli: Any, isolated_env: dict[str, Path]) -> None:
    import json

    store = OutputStore.from_env()
    code, out, _ = cli("outputs", "list")
    assert code == 0 and "no stored outputs" in out
    a = store.write_text("bash", "first\nsecond\n")
    b = store.write_text("read", "other")
    code, out, _ = cli("outputs", "list")
    assert code == 0 and a.id in out and b.id in out and "bash" in out
    code, out, _ = cli("outputs", "list", "--format", "json")
    data = json.loads(out)
    assert [o["id"] for o in data["outputs"]] == [a.id, b.id]
    assert data["outputs"][0]["path"] == str(a.path) and data["outputs"][0]["tool"] == "bash"
    code, out, _ = cli("outputs", "show", a.id)
    assert (code, out) == (0, "first\nsecond\n")
    code, out, _ = cli("outputs", "show", "--path", b.id)
    assert (code, out.strip()) == (0, str(b.path))
    now = time.time()
    _age(a.path, 30, now)
    code, out, _ = cli("outputs", "clean", "--dry-run")
    assert code == 0 and str(a.path) in out and a.path.exists()
    code, out, _ = cli("outputs", "clean")
    assert code == 0 and not a.path.exists() and b.path.exists()
    code, out, _ = cli("outputs", "clean", "--older-than", "0")
    assert code == 0 and not b.path.exists()


def test_cli_unknown_id_suggests(cli: Any) -> None:
    store = OutputStore.from_env()
    f = store.write_text("bash", "x")
    code, _, err = cli("outputs", "show", f.id[:-1] + "Q")
    assert code == 1
    assert "unknown output" in err and f.id in err
    code, _, err = cli("outputs", "show", "nothing-like-it")
    assert code == 1 and "outputs list" in err and len(err.strip().splitlines()) == 1
    code, _, err = cli("outputs", "list", "--format", "xml")
    assert code == 2 and "--format" in err
    code, _, err = cli("outputs", "clean", "--older-than", "-1")
    assert code == 2 and "--older-than" in err


def test_retention_from_config() -> None:
    from forge_tools.errors import ConfigError

    assert OutputStore.from_config({"tool_output": {"retention_days": 2}}).retention_days == 2
    assert OutputStore.from_config(None).retention_days == 7
    with pytest.raises(ConfigError):
        OutputStore.from_config({"tool_output": {"retention_days": "soon"}})


def _make_files(directory: str, count: int) -> None:
    store = OutputStore(Path(directory))
    for _ in range(count):
        store.write_text("bash", str(os.getpid()))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_two_processes_at_once_never_share_a_file(tmp_path: Path) -> None:
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_make_files, args=(str(tmp_path), 40)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert [p.exitcode for p in procs] == [0, 0, 0]
    entries = OutputStore(tmp_path).list()
    assert len(entries) == len({e.id for e in entries}) == 120
    assert {e.path.read_text() for e in entries} == {str(p.pid) for p in procs}


# -- the fallback is the tool's own dir too; names and prefixes ------------------------------------


def test_a_relative_data_dir_is_made_absolute(monkeypatch: pytest.MonkeyPatch,
                                              isolated_env: dict[str, Path]) -> None:
    from forge_tools import paths

    monkeypatch.setenv("FORGE_DATA_DIR", "rel/data")
    expected = isolated_env["project"] / "rel" / "data" / "tool-output"
    assert paths.truncation_dir() == expected
    assert paths.truncation_glob() == f"{expected}/*"
    assert OutputStore.from_env().directory == expected


def test_the_fallback_is_allowed_only_when_it_is_ours(tmp_path: Path) -> None:
    from forge_tools import paths

    env = {"HOME": str(tmp_path), "FORGE_DATA_DIR": str(tmp_path / "data")}
    fallback = paths.fallback_truncation_dir()
    assert paths.truncation_globs(env) == [paths.truncation_glob(env)]  # not made yet: nothing to allow
    fallback.mkdir(mode=0o700)
    assert paths.truncation_globs(env) == [f"{fallback}/*", paths.truncation_glob(env)]
    fallback.chmod(0o777)  # others could put links in it: not the tool's private dir
    assert paths.truncation_globs(env) == [paths.truncation_glob(env)]
    fallback.rmdir()
    fallback.symlink_to(tmp_path)
    assert paths.truncation_globs(env) == [paths.truncation_glob(env)]


@pytest.mark.skipif(not Path("/bin/sh").exists(), reason="needs a POSIX shell")
def test_an_output_saved_in_the_fallback_is_readable_and_listed_there(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import json

    from forge_tools import paths

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("FORGE_DATA_DIR", str(blocker / "nope"))
    code, _, err = cli("run", "bash", "--args", '{"command": "seq 1 100000"}')
    assert code == 0, err
    saved = next(line.split("full output:")[1].strip() for line in err.splitlines() if "full output:" in line)
    assert Path(saved).parent == paths.fallback_truncation_dir()
    code, out, err = cli("run", "read", "--args", json.dumps({"filePath": saved, "limit": 1}))
    assert code == 0, err  # the tool's own dir: no external_directory ask (it would be refused here)
    code, out, _ = cli("outputs", "list")
    assert code == 0 and str(paths.fallback_truncation_dir()) in out and str(blocker) not in out
    code, out, _ = cli("outputs", "show", "--path", Path(saved).name.split("-")[0])
    assert code == 0 and out.strip() == saved


def test_an_ambiguous_prefix_lists_its_matches_and_tool_may_be_left_out(cli: Any) -> None:
    store = OutputStore.from_env()
    a = store.write_text("bash", "a")
    b = store.write_text("read", "b")
    common = next(a.id[:i] for i in range(len(a.id), 0, -1) if b.id.startswith(a.id[:i]))
    code, _, err = cli("outputs", "show", common)
    assert code == 2, err
    assert "ambiguous" in err and a.id in err and b.id in err and "did you mean" not in err
    code, out, _ = cli("outputs", "show", "--path", b.id.removeprefix("tool_"))
    assert (code, out.strip()) == (0, str(b.path))


# -- the cleanup stamp never follows a link (issue 9) ------------------------------------------------


def test_a_dangling_stamp_symlink_does_not_create_its_target(tmp_path: Path) -> None:
    store = OutputStore(tmp_path / "out")
    store.directory.mkdir(mode=0o700)
    victim = tmp_path / "victim" / "created-by-cleanup"
    victim.parent.mkdir()
    (store.directory / STAMP_NAME).symlink_to(victim)
    now = time.time()
    assert store.maybe_cleanup(now=now) == []
    assert not victim.exists()
    stamp = store.directory / STAMP_NAME
    assert not stamp.is_symlink() and stamp.is_file()
    assert os.lstat(stamp).st_mtime == pytest.approx(now)
    assert store.maybe_cleanup(now=now + 10) is None  # the new stamp keeps the hourly schedule


def test_a_stamp_symlink_to_an_existing_file_leaves_its_mtime_alone(tmp_path: Path) -> None:
    store = OutputStore(tmp_path / "out")
    store.directory.mkdir(mode=0o700)
    victim = tmp_path / "important.txt"
    victim.write_text("keep me")
    os.utime(victim, (1_000_000, 1_000_000))
    (store.directory / STAMP_NAME).symlink_to(victim)
    now = time.time()
    assert store.maybe_cleanup(now=now) == []
    assert os.stat(victim).st_mtime == 1_000_000
    assert victim.read_text() == "keep me"
    assert not (store.directory / STAMP_NAME).is_symlink()


def test_a_hard_linked_stamp_is_replaced_not_touched(tmp_path: Path) -> None:
    store = OutputStore(tmp_path / "out")
    store.directory.mkdir(mode=0o700)
    victim = tmp_path / "other.txt"
    victim.write_text("x")
    os.utime(victim, (1_000_000, 1_000_000))
    os.link(victim, store.directory / STAMP_NAME)
    assert store.maybe_cleanup(now=time.time()) == []
    assert os.stat(victim).st_mtime == 1_000_000
    assert os.stat(victim).st_nlink == 1


_TEMP_PROBE = """
import json, os, sys
from forge_tools.paths import system_temp_dir
ours = system_temp_dir()
imported = "tempfile" in sys.modules
import tempfile
print(json.dumps([ours, os.path.abspath(tempfile.gettempdir()), imported]))
"""


@pytest.mark.skipif(os.name != "posix", reason="POSIX temp dirs")
@pytest.mark.parametrize("tmpdir", ["unset", "writable", "missing", "a file", "read-only"])
def test_the_system_temp_dir_is_the_one_tempfile_chooses(tmp_path: Path, tmpdir: str) -> None:
    """paths.system_temp_dir (the fallback's parent) names tempfile.gettempdir()'s choice, importing
    tempfile only when $TMPDIR (the first candidate) cannot be used; $TEMP is then the next candidate.
    Compared in a fresh interpreter, where tempfile has chosen nothing yet."""
    import json
    import subprocess
    import sys

    temp = tmp_path / "temp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "TEMP", "TMP")}
    env["TEMP"] = str(temp)
    target = tmp_path / "tmpdir"
    if tmpdir == "writable":
        target.mkdir()
    elif tmpdir == "a file":
        target.write_text("")
    elif tmpdir == "read-only":
        target.mkdir(mode=0o500)
    if tmpdir != "unset":
        env["TMPDIR"] = str(target)
    proc = subprocess.run([sys.executable, "-c", _TEMP_PROBE], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    ours, theirs, imported = json.loads(proc.stdout)
    assert ours == theirs
    expected = {"unset": str(temp), "writable": str(target), "missing": str(temp), "a file": str(temp)}
    if tmpdir in expected:
        assert ours == expected[tmpdir]
    if tmpdir in ("unset", "writable"):
        assert not imported  # the common case costs no tempfile import (about 5 ms of start-up)
    if tmpdir in ("missing", "a file"):
        assert imported
