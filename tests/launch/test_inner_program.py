"""Building the sandbox's inner program (inner.c) once per machine, and the fallback to
inner.py: real compiler, real files (the sandbox itself: tests/launch/test_sandbox.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from daihinmin.launch.inner_program import (
    PYTHON_INNER,
    InnerBuildError,
    build_inner,
    choose_inner,
    compiler,
)

needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler (cc) here")


@needs_cc
def test_built_once_into_a_private_cache(tmp_path: Path) -> None:
    cc = compiler()
    cache = tmp_path / "cache"
    program = build_inner(cache, cc)
    assert program.parent == cache and program.name.startswith("inner-")
    assert os.access(program, os.X_OK) and cache.stat().st_mode & 0o777 == 0o700
    built = program.stat()
    again = build_inner(cache, cc)  # the cached one: not compiled, not written again
    assert again == program and again.stat().st_mtime_ns == built.st_mtime_ns
    assert [p.name for p in cache.iterdir()] == [program.name]  # no partial file left
    inner = choose_inner(cache, cc)
    assert (inner.kind, inner.path) == ("c", program)


@needs_cc
def test_a_cache_others_can_write_is_not_used(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    program = build_inner(shared, compiler())
    assert program.parent != shared and list(shared.iterdir()) == []


def test_no_compiler_or_a_failing_one_falls_back_to_python(tmp_path: Path) -> None:
    with pytest.raises(InnerBuildError, match="no C compiler"):
        build_inner(tmp_path, None)
    inner = choose_inner(tmp_path, None)
    assert (inner.kind, inner.path) == ("python", PYTHON_INNER)
    assert "Python (no C compiler" in inner.describe()
    failing = choose_inner(tmp_path, ["false"])  # a compiler that fails
    assert failing.kind == "python" and "could not build inner.c" in failing.note
    assert list(tmp_path.iterdir()) == []
