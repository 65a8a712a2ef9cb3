"""Did the lists come true: what each night served, what members held, and what they did next.

Three tables a night writes after discovery, in this order (``pipelines`` asset ``list_outcomes``):

1. ``history.record_collections``: the night's ``marts.collections`` as versions in
   ``marts.collection_history`` (only the changes), numbered by ``marts.history_nights``;
2. ``exposure.record_served``: the top 10 of each list the night serves, in
   ``marts.served_lists`` (the exposure log);
3. ``rates.record_outcomes``: each (served night, list, window) whose window has closed, in
   ``marts.list_outcomes``.

Why our own history rather than click logs: the site gives us no clicks, but every night's
crawl sees what each member holds, so "did a member take a game we listed" is a comparison of
two nights' collections, exact and for every member.
"""
