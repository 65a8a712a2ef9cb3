"""Privacy: a member whose collection is private leaves no trace anywhere the pipeline keeps data.

The rule (CONTRACT: "a private collection leaves no row anywhere"): the warehouse, the
published night, every export bundle, the models' files and the backups hold only members
who are public now (`public` says who is). Every writer that learns a member is no
longer public calls one function, `cut.cut_everywhere`, which cuts them from every copy;
members found private during a crawl are journalled until that cut is done (`erasure`);
the warehouse's own copies and the models' files are cut by `erase` and `model_files`.

Why one package: a member who turns private must be cut from every copy, and the copies
live in other domains (release, backup, models); the rule of who is public and the cut
itself are stated here once, and the other domains only apply it to their own files.
"""
