"""Score normalisation shared by plugins (upstream ``helper.DefaultNormalizeScore``)."""

from __future__ import annotations

from tasplan.framework.types import MAX_NODE_SCORE


def default_normalize(scores: list[int], *, reverse: bool = False) -> None:
    """Scale in place to [0, 100] by the maximum (integer division); ``reverse`` flips it so
    that fewer is better. All-zero input stays 0, or becomes 100 when reversed."""
    top = max(scores, default=0)
    if top == 0:
        if reverse:
            scores[:] = [MAX_NODE_SCORE] * len(scores)
        return
    for i, value in enumerate(scores):
        value = MAX_NODE_SCORE * value // top
        scores[i] = MAX_NODE_SCORE - value if reverse else value
