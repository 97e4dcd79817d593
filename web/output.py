"""Writing a page file without ever clobbering one: written beside its name, then linked."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


class OutputExistsError(FileExistsError):
    """The file to write exists already."""


def write_new_file(path: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (or its pieces, as they come) to ``path``, which must not exist
    (:class:`OutputExistsError`); a reader never sees half a file, two writers never mix,
    and a piece that fails to come leaves no file."""
    if path.exists():
        raise OutputExistsError(f"{path} exists already; choose another name")
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temp.open("w", encoding="utf-8") as f:
            for piece in [text] if isinstance(text, str) else text:
                f.write(piece)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    try:
        os.link(temp, path)  # fails if the name appeared meanwhile
    except FileExistsError:
        raise OutputExistsError(f"{path} exists already; choose another name") from None
    finally:
        temp.unlink()


__all__ = ["OutputExistsError", "write_new_file"]
