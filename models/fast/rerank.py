"""MMR re-ranking of a member's first slots (``mmr_rows``).

A slot's gain is ``score − diversity · closest`` (float32), the first best picked; the
rest of the pool keeps its order; scores below the MMR slots are capped by the slot above
(``models.discovery.reference.mmr_order`` is the numpy form).
"""

from __future__ import annotations

import numpy as np

from models.fast.compiled import compiled


@compiled
def mmr_rows(ids, values, indptr, indices, data, n_games, diversity, k, pool):
    """MMR for each row (the module docstring), one member at a time.

    A slot's gain is ``score − diversity · closest`` (float32, as numpy computed it),
    the pick the first best; the similarity of a picked game to the pool is read only
    then, from its graph row spread into a scratch row of ``n_games`` (the stored value,
    0 elsewhere: ``csr_value``'s, without a binary search per pool game)."""
    n_users, n_cols = ids.shape
    width = min(pool, n_cols)
    steps = min(k, width)
    new_ids = ids.copy()
    new_values = values.copy()
    closest = np.empty(width, dtype=np.float32)
    near = np.zeros(n_games, dtype=np.float32)  # the picked game's graph row, spread
    chosen = np.empty(width, dtype=np.bool_)
    order = np.empty(steps, dtype=np.int64)
    gains = np.empty(steps, dtype=np.float32)
    for user in range(n_users):
        closest[:] = 0.0
        chosen[:] = False
        picked = 0
        for _ in range(steps):
            best = np.float32(-np.inf)
            pick = 0
            for slot in range(width):
                if ids[user, slot] >= 0 and not chosen[slot]:
                    gain = values[user, slot] - diversity * closest[slot]
                    if gain > best:  # the first best, as argmax
                        best = gain
                        pick = slot
            if not np.isfinite(best):
                break  # nothing left to pick
            order[picked] = pick
            gains[picked] = best
            chosen[pick] = True
            picked += 1
            game = ids[user, pick]
            for at in range(indptr[game], indptr[game + 1]):
                near[indices[at]] = np.float32(data[at])
            for slot in range(width):
                other = max(ids[user, slot], 0)
                closest[slot] = max(closest[slot], near[other])
            for at in range(indptr[game], indptr[game + 1]):
                near[indices[at]] = 0.0
        for at in range(picked):
            new_ids[user, at] = ids[user, order[at]]
            new_values[user, at] = gains[at]
        at = picked
        for slot in range(width):  # the rest of the pool keeps its order
            if not chosen[slot]:
                new_ids[user, at] = ids[user, slot]
                new_values[user, at] = values[user, slot]
                at += 1
        # The key a list is ranked by never rises: below the MMR slots, capped by the slot above.
        for slot in range(1, n_cols):
            if new_values[user, slot] > new_values[user, slot - 1]:
                new_values[user, slot] = new_values[user, slot - 1]
    return new_ids, new_values
