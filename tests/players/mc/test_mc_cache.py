"""The mc player's Numba cache is versioned by its sources (Numba alone would keep running a
caller's old machine code after an edit to a callee in another file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from daihinmin.players import mc
from daihinmin.players.mc import CACHE_PREFIX, source_digest, use_versioned_cache
from numba.core import config

numba_config: Any = config  # its CACHE_DIR, read by Numba, is not declared to the checker
ONE = ("*.py",)  # a folder of sources, as the tests below make


def test_digest_changes_with_any_source_file(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    first = source_digest(tmp_path, ONE)
    assert source_digest(tmp_path, ONE) == first
    (tmp_path / "b.py").write_text("y = 3\n")
    assert source_digest(tmp_path, ONE) != first
    (tmp_path / "c.py").write_text("")
    assert len({first, source_digest(tmp_path, ONE)}) == 2


def test_versioned_cache_is_used_and_older_versions_go(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numba_config, "CACHE_DIR", numba_config.CACHE_DIR)  # restored after
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    (tmp_path / "a.py").write_text("x = 1\n")
    old = tmp_path / "__pycache__" / f"{CACHE_PREFIX}0123456789abcdef"
    old.mkdir(parents=True)
    unrelated = tmp_path / "__pycache__" / "other"
    unrelated.mkdir()
    path = use_versioned_cache(tmp_path, tmp_path, ONE)
    assert path == numba_config.CACHE_DIR
    assert Path(path) == tmp_path / "__pycache__" / (CACHE_PREFIX + source_digest(tmp_path, ONE))
    assert not old.exists() and unrelated.exists()


def test_a_shared_cache_dir_is_versioned_but_not_pruned(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numba_config, "CACHE_DIR", numba_config.CACHE_DIR)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "shared"))
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text("x = 1\n")
    other_checkout = tmp_path / "shared" / f"{CACHE_PREFIX}0123456789abcdef"
    other_checkout.mkdir(parents=True)
    path = use_versioned_cache(src, src, ONE)
    assert Path(path) == tmp_path / "shared" / (CACHE_PREFIX + source_digest(src, ONE))
    assert other_checkout.exists()


def test_the_player_package_caches_under_its_own_digest() -> None:
    assert Path(mc.CACHE_DIR).name == CACHE_PREFIX + source_digest()


def test_every_file_with_cached_numba_code_is_in_the_digest() -> None:
    """A file with Numba code outside the digest would, once edited, leave its callers'
    cached code running the old version of it."""
    listed = {p for pattern in mc.NUMBA_SOURCES for p in mc.ROOT.glob(pattern)}
    assert listed
    skipped = {"tests", "typecheck", "scripts", "examples", "docs"}
    numba_files = {p for p in mc.ROOT.rglob("*.py")
                   if not {".venv", "site-packages"} & set(p.parts)
                   and p.relative_to(mc.ROOT).parts[0] not in skipped
                   and "cache=True" in p.read_text(encoding="utf-8")}
    assert numba_files - listed == set()


def test_an_edit_outside_the_player_folder_starts_a_fresh_cache(tmp_path: Path) -> None:
    for name in ("players/mc/a.py", "local/pyrandom.py", "env/batched.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    first = source_digest(tmp_path)
    (tmp_path / "local/pyrandom.py").write_text("x = 2\n")
    assert source_digest(tmp_path) != first
