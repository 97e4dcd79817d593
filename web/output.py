"""Writing a page file without ever clobbering one: written beside its name, then linked."""

from __future__ import annotations

import os
from pathlib import Path


class OutputExistsError(FileExistsError):
    """The file to write exists already."""


def write_new_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, which must not exist (:class:`OutputExistsError`); a
    reader never sees half a file, and two writers never mix."""
    if path.exists():
        raise OutputExistsError(f"{path} exists already; choose another name")
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    try:
        os.link(temp, path)  # fails if the name appeared meanwhile
    except FileExistsError:
        raise OutputExistsError(f"{path} exists already; choose another name") from None
    finally:
        temp.unlink()


__all__ = ["OutputExistsError", "write_new_file"]
