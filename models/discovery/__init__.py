"""Discovery: what to play next, for a member, a member's shelf, or a table of friends.

One fitted state (``model.DiscoveryModel``: the champion, content similarity and
popularity) and one way of scoring (``blend``), shared by every mode; a mode only says
which games it may list and how members' scores are combined.

* ``run.discover``: the night's run, top 100 per member into ``marts.recommendations``
  and similar games (``similar``) into ``marts.similar_games``;
* ``serving``: ranking one member again from the saved model, for ``bodoge recommend USER`` when
  its filters leave the stored list too thin (the filtering itself is SQL, ``warehouse.views``);
* ``play_next``: ``bodoge recommend USER --owned-unplayed`` and ``next_to_play.jsonl``;
* ``watch_next``: ``bodoge recommend USER --watching`` and ``watch_next.jsonl``;
* ``group``: ``bodoge recommend --group …`` (game night);
* ``members``, ``attribution``, ``reasons``, ``store``: the parts they share.

Import from the modules themselves (one import path per name).
"""
