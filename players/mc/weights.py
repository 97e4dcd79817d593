"""The learned playout policy's features (names, in order), its fitted weights, and the
JSON weights files that ``python -m daihinmin.research.mc_fit --out`` writes.

Kept apart from :mod:`~daihinmin.players.mc.learned` so that the policy parameter vector
(:mod:`~daihinmin.players.mc.rollout`) can carry the weights without an import cycle.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

FEATURE_NAMES = ("pass", "strength_lead", "strength_follow", "extra_lead", "joker_mix",
                 "joker_alone", "split", "run", "cut", "revolt", "revolt_weak",
                 "control_lead", "control_follow", "top_follow", "ranks_left", "cards_left",
                 "pass_field", "pass_active", "lock", "sequence", "role_play", "role_left",
                 "only_role", "pass_draw")
N_FEATURES = len(FEATURE_NAMES)

#: Fitted to 4,419 searched decisions of ``mc`` (3,000 playouts, heuristic playouts) against
#: four ``default`` bots: ``python -m daihinmin.research.mc_fit --games 800 --jobs 2
#: --playouts 3000 --self-policy 0 --seed 5`` (held-out top-1 agreement with the search 0.51).
FITTED_WEIGHTS = np.array([
    -1.46, -1.03, -1.10, 0.47, -1.40, -1.01, -0.21, -0.46, -0.04, 0.49,
    1.24, 0.26, 0.28, -0.21, -5.91, 4.95, 0.17, -0.24, 0.13, -0.04,
    0.0, 0.0, 0.0, 0.0,  # the role-card and draw features: zero at the uecda rules
])


class WeightsFileError(ValueError):
    """A weights file is not a JSON object of known ``w_<feature>`` names and numbers."""


def save_weights(path: str, weights: Sequence[float]) -> None:
    """Write one weight per feature as ``{"w_<feature>": value}`` (the policy options)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump({f"w_{name}": round(float(x), 3)
                   for name, x in zip(FEATURE_NAMES, weights, strict=True)}, f, indent=1)


def load_weights(path: str) -> dict[str, float]:
    """Policy options ``{"w_<feature>": value}`` from a file :func:`save_weights` wrote."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        raise WeightsFileError(f"cannot read weights from {path}: {exc}") from exc
    known = {f"w_{name}" for name in FEATURE_NAMES}
    if not isinstance(data, dict) or not set(data) <= known or not all(
            isinstance(v, int | float) for v in data.values()):
        raise WeightsFileError(f"{path}: expected an object of w_<feature> numbers "
                               f"({', '.join(sorted(known))})")
    return {k: float(v) for k, v in data.items()}
