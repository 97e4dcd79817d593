"""Each package that users import states its public names, and every one of them is there.

A package's ``__all__`` is its public API (python-chess style: import from the package, not
from deep modules); names a package gives lazily (``__getattr__``) must resolve too, and
``from package import *`` must give exactly ``__all__``.
"""

from __future__ import annotations

import importlib

import pytest

PUBLIC = ["daihinmin", "daihinmin.values", "daihinmin.rules", "daihinmin.protocol",
          "daihinmin.contract", "daihinmin.driver", "daihinmin.records", "daihinmin.players",
          "daihinmin.client", "daihinmin.launch", "daihinmin.local", "daihinmin.watch",
          "daihinmin.runs", "daihinmin.web"]


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_resolves(name: str) -> None:
    package = importlib.import_module(name)
    public = package.__all__
    assert public, f"{name} states no public names"
    assert len(set(public)) == len(public), f"{name}.__all__ repeats a name"
    for attr in public:
        assert getattr(package, attr) is not None, f"{name}.{attr}"
    star: dict[str, object] = {}
    exec(f"from {name} import *", star)
    assert set(star) - {"__builtins__"} == set(public)


def test_a_missing_name_is_an_attribute_error() -> None:
    for name in PUBLIC:
        with pytest.raises(AttributeError):
            _ = importlib.import_module(name).no_such_name


def test_the_version_is_the_installed_one() -> None:
    from importlib import metadata

    import daihinmin

    assert daihinmin.__version__ == metadata.version("daihinmin")

