"""Run the doctested examples of every module (found from pyproject's packages, no list).

A module without examples passes with nothing to run; ``test_most_modules_have_examples``
keeps the examples from quietly disappearing.
"""

import doctest
import importlib

import pytest
from modules import module_names

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", module_names())
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=FLAGS)
    assert result.failed == 0


def test_most_modules_have_examples() -> None:
    finder = doctest.DocTestFinder()
    with_examples = [name for name in module_names()
                     if any(t.examples for t in finder.find(importlib.import_module(name)))]
    assert len(with_examples) >= 40, with_examples  # 43 when the list was dropped
