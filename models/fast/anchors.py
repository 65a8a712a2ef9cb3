"""The reasons' anchors for item-to-item champions, one pass per member (``anchor_rows``).

Per listed game: the liked game with the largest positive contribution (content plus the
champion's attribution ``W[g, i] · c``, an ensemble's parts clipped at 0 and scaled),
ties to the lowest game, -1 if none: ``models.discovery.reference.anchors_by_pairs``'
numbers, compared in float32 (the reference's float64 of them orders the same).
"""

from __future__ import annotations

import numpy as np

from models.fast.compiled import compiled


@compiled
def anchor_rows(ids, liked_indptr, pair_game, pair_weight, content_scale, cf_scale,
                 g_indptr, g_indices, g_data, n_games, cf_cols, cf_game, with_cf, confidence,
                 slots, n_parts, dense, ensemble, part_scales, n_items, ascending):
    """Per member, per liked game ``p``, per listed slot ``t``: the content part
    ``graph[g, item] · (w · content_scale)`` (the liked game's neighbours looked up among
    the listed games, through ``slot_of``: a scattered copy of its graph row read at
    every listed game cost more than the rest of the pass) plus, where the champion attributes, the CF
    part ``Σ max(W[g, item] · c, 0) · scale`` (an ensemble; one model: ``W[g, item] · c``)
    times ``cf_scale``; the slot keeps the game with the largest positive contribution
    (ties: the lowest game), -1 if none. ``ascending``: each member's liked games come in
    ascending order (then the first largest is the lowest game on a tie). Compared in
    float32: ``segment_argmax``'s float64 of the float32 values orders them the same."""
    n_users, take = ids.shape
    best = np.full((n_users, take), -1, dtype=np.int64)
    top = np.empty(take, dtype=np.float32)  # the best positive contribution so far (0: none)
    items = np.empty(take, dtype=np.int64)
    item_cols = np.empty(take, dtype=np.int64)
    contribution = np.empty(take, dtype=np.float32)
    total = np.empty(take, dtype=np.float32)
    products = np.empty(take, dtype=np.float32)
    slot_of = np.full(n_games, -1, dtype=np.int64)  # a listed game's slot, -1 elsewhere
    weight_row = np.zeros(n_items, dtype=np.float32)
    zero = np.float32(0.0)
    for user in range(n_users):
        for t in range(take):
            top[t] = 0.0
            items[t] = max(ids[user, t], 0)
            item_cols[t] = cf_cols[items[t]]
            if ids[user, t] >= 0:
                slot_of[ids[user, t]] = t
        for p in range(liked_indptr[user], liked_indptr[user + 1]):
            game = pair_game[p]
            coefficient = pair_weight[p] * content_scale[user]
            # The liked game's neighbours that are listed: the graph's value there, 0
            # elsewhere, as the graph row read at every listed game. (Padding slots, -1,
            # are never named, whatever they hold.)
            for t in range(take):
                contribution[t] = zero * coefficient
            for at in range(g_indptr[game], g_indptr[game + 1]):
                t = slot_of[g_indices[at]]
                if t >= 0:
                    contribution[t] = np.float32(g_data[at]) * coefficient
            if with_cf[p]:
                for t in range(take):
                    total[t] = 0.0
                for q in range(n_parts):
                    if q == 0:
                        _part_values(slots[0], dense[0], cf_game[p], item_cols, confidence[p], weight_row, products,
                                     total, ensemble, part_scales[0, user])
                    elif q == 1:
                        _part_values(slots[1], dense[1], cf_game[p], item_cols, confidence[p], weight_row, products,
                                     total, ensemble, part_scales[1, user])
                    else:
                        _part_values(slots[2], dense[2], cf_game[p], item_cols, confidence[p], weight_row, products,
                                     total, ensemble, part_scales[2, user])
                for t in range(take):
                    part = total[t] if item_cols[t] >= 0 else zero
                    contribution[t] += part * cf_scale[user]
            if ascending:  # a later game never wins a tie: keep the first largest (selects, vectorised)
                row_best = best[user]
                for t in range(take):
                    value = contribution[t]
                    better = value > top[t]
                    top[t] = value if better else top[t]
                    row_best[t] = game if better else row_best[t]
            else:
                for t in range(take):
                    value = contribution[t]
                    if value > 0 and (value > top[t] or (value == top[t] and game < best[user, t])):
                        top[t] = value
                        best[user, t] = game
        for t in range(take):
            if ids[user, t] >= 0:
                slot_of[ids[user, t]] = -1
    return best


@compiled
def _part_values(slot, is_dense, game_col, item_cols, confidence, weight_row, products, total, ensemble, scale):
    """One attribution part's ``W[game, item] · confidence`` for each listed game, added to
    ``total`` clipped and scaled (an ensemble) or put there (one model); ``products``:
    scratch of the listed games' count. ``W`` is EASE's dense weights over its modelled games
    (``positions``; 0 where either game is not modelled) or a canonical CSR matrix."""
    weights, positions, w_indptr, w_indices, w_data = slot
    take = item_cols.size
    if is_dense:
        row = positions[game_col]
        for t in range(take):
            col = positions[max(item_cols[t], 0)]
            value = weights[row, col] if (row >= 0) & (col >= 0) else np.float32(0.0)
            products[t] = value * confidence
    else:
        for at in range(w_indptr[game_col], w_indptr[game_col + 1]):
            weight_row[w_indices[at]] = w_data[at]
        for t in range(take):
            products[t] = weight_row[max(item_cols[t], 0)] * confidence
        for at in range(w_indptr[game_col], w_indptr[game_col + 1]):
            weight_row[w_indices[at]] = 0.0
    for t in range(take):
        value = products[t]
        if ensemble:
            clipped = value if (value >= 0) | (value != value) else np.float32(0.0)  # numpy's maximum keeps NaN
            total[t] += clipped * scale
        else:
            total[t] = value
