"""Discovery: what to play next, for a member, a member's shelf, or a table of friends.

One fitted state (``model.DiscoveryModel``: the champion, content similarity and
popularity) and one way of scoring, shared by every mode; a mode only says which games it
may list and how members' scores are combined. docs/discovery.md is the guide.

* ``reference``: what every list is, in plain numpy (``engine="reference"``, the tests' oracle);
  the compiled engine (``engine="compiled"``, the default) runs ``models.fast``' loops
  through ``onepass`` (a whole block per member), ``fused`` (an item-to-item champion's
  part) and ``anchors``;
* ``blend``: the blend's weights (``Blend``), which rows say "I like this game";
  ``rerank``: MMR and the long-tail boost; ``members``: a batch's rows; ``attribution``,
  ``reasons``: why a game is listed;
* ``run.discover``: the night's run, top 100 per member into ``marts.recommendations``
  and similar games (``similar``) into ``marts.similar_games``;
* ``shelves``: play next (``bodoge recommend USER --owned-unplayed``, ``next_to_play.jsonl``)
  and the watch-list shelf (``--watching``, ``watch_next.jsonl``);
* ``group``: ``bodoge recommend --group …`` (game night); ``group_eval``, ``watch_eval``:
  how those are measured offline;
* ``serving``: ranking one member again from the saved model (``bodoge recommend USER`` when
  its filters leave the stored list too thin); ``store``: saving and loading the state.

Import from the modules themselves (one import path per name).
"""
