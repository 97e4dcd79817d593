"""Whether a start of ``mc`` compiles, or loads its code from Numba's cache.

A first start compiles every Numba function (minutes on a 2-core machine); later starts load
them from the cache in about a second.  So a start announces a compile only when one really
starts: after a full warm-up, :func:`record_warm` writes the names of the functions it
called from Python (each one's cached code holds its callees') into the cache directory of
these sources (:data:`MANIFEST`), and
:func:`compile_needed` asks Numba's own index of each of them whether it holds code for this
machine and these sources (the same test Numba makes when it loads: the index's Numba
version and source stamp, the signature, the CPU and the bytecode).  When it cannot tell (no
manifest, a function gone, an unreadable index), it says a compile is needed.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any

from . import CACHE_DIR

MANIFEST = "warmed-functions.txt"
PACKAGE = __name__.rpartition(".")[0]


def cached_functions(module: Any) -> dict[str, Any]:
    """The ``cache=True`` Numba functions defined in ``module``, by name."""
    out = {}
    for name, obj in vars(module).items():
        cache = getattr(obj, "_cache", None)
        py_func = getattr(obj, "py_func", None)
        if (py_func is not None and getattr(py_func, "__module__", None) == module.__name__
                and hasattr(cache, "_cache_file")):  # a NullCache has none
            out[name] = obj
    return out


def is_cached(function: Any, codegen: Any) -> bool:
    """Numba's index of ``function`` holds code it would load on this machine."""
    cache = function._cache
    index = cache._cache_file._load_index()  # {} when stale (other sources or Numba)
    return any(cache._index_key(key[0], codegen) == key for key in index)


def _codegen() -> Any:
    from numba.core.registry import cpu_target

    return cpu_target.target_context.codegen()


def record_warm(cache_dir: str = CACHE_DIR) -> None:
    """After a warm-up: the functions it compiled or loaded, for :func:`compile_needed`."""
    names = sorted(f"{module.__name__}:{name}"
                   for key, module in list(sys.modules.items())
                   if key.startswith(PACKAGE + ".") and module is not None
                   for name, function in cached_functions(module).items()
                   if function.signatures)
    path = Path(cache_dir) / MANIFEST
    temp = path.with_name(f"{MANIFEST}.{os.getpid()}")
    try:
        temp.write_text("\n".join(names) + "\n", encoding="utf-8")
        os.replace(temp, path)  # whole or not at all: other processes may read it
    except OSError:
        temp.unlink(missing_ok=True)  # a read-only cache: the next start says "compiling"


def compile_needed(cache_dir: str = CACHE_DIR) -> bool:
    """Whether warming up would compile (True also when it cannot tell)."""
    try:
        names = (Path(cache_dir) / MANIFEST).read_text(encoding="utf-8").split()
    except (OSError, UnicodeDecodeError):
        return True
    if not names:
        return True
    try:
        codegen = _codegen()
        for entry in names:
            module_name, _, name = entry.partition(":")
            if not module_name.startswith(PACKAGE + "."):
                return True
            function = cached_functions(importlib.import_module(module_name)).get(name)
            if function is None or not is_cached(function, codegen):
                return True
    except Exception:  # Numba's internals changed: say a compile may come
        return True
    return False


__all__ = ["MANIFEST", "cached_functions", "compile_needed", "is_cached", "record_warm"]
