"""The learned playout policy's features (names, in order) and its fitted weights.

Kept apart from :mod:`~daihinmin.players.mc.learned` so that the policy parameter vector
(:mod:`~daihinmin.players.mc.rollout`) can carry the weights without an import cycle.
"""

from __future__ import annotations

import numpy as np

FEATURE_NAMES = ("pass", "strength_lead", "strength_follow", "extra_lead", "joker_mix",
                 "joker_alone", "split", "run", "cut", "revolt", "revolt_weak",
                 "control_lead", "control_follow", "top_follow", "ranks_left", "cards_left",
                 "pass_field", "pass_active", "lock", "sequence")
N_FEATURES = len(FEATURE_NAMES)

#: Fitted to 4,419 searched decisions of ``mc`` (3,000 playouts, heuristic playouts) against
#: four ``default`` bots: ``python -m daihinmin.tools.mc_fit --games 800 --jobs 2
#: --playouts 3000 --self-policy 0 --seed 5`` (held-out top-1 agreement with the search 0.51).
FITTED_WEIGHTS = np.array([
    -1.46, -1.03, -1.10, 0.47, -1.40, -1.01, -0.21, -0.46, -0.04, 0.49,
    1.24, 0.26, 0.28, -0.21, -5.91, 4.95, 0.17, -0.24, 0.13, -0.04,
])
