"""The write path: every change of a document, from the repository's public
methods down to the SQL, in one transaction with its revision.

The modules, from the top down:

- ``repository``: ``WorkspaceRepository``, where every write starts: it
  checks the values, takes the call's reason, actor and expected version
  and runs one of the writes below under the row lock;
- ``calls``: the current tool call (``CallOptions``, ``ToolCall``): who makes
  it, why, with which expected version, so that every write below records
  them without their being passed down;
- ``edits``: where an agent's ``edit_document`` replaces text, and what it is
  told when ``old_str`` is not there exactly once;
- ``person_edits``: a person's edit, merged under the row lock with what
  changed since the version it started from: ``merging``, the three-way
  merge by lines, over ``line_diff``, the patience diff of two lists of lines;
- ``proposals``: an agent's change of a document in review, stored as a
  proposal where ``writes`` would have written it; ``hunks``, its line
  regions against the content it was made on; ``decisions``, a person's
  accepting all, none or some of them, merged as a person's edit is;
- ``pruning``: the upkeep of the revision log, so that every kept version
  still rebuilds;
- ``writes``: one change written with its revision and announced (create,
  append, replace, a splice where that is smaller);
- ``statements``: the raw SQL of those writes, for PostgreSQL and SQLite;
- ``preconditions``: what ``If-Match``, ``Idempotency-Key`` and ``Draft-Id``
  may be, and how each is read;
- ``idempotency``: a call made with a key is applied at most once, and a
  retry answered with the first answer.

The rules, each kept in one place:

- a change and its revision commit together or not at all, under the row
  lock (PostgreSQL's ``SELECT ... FOR UPDATE`` or a locking ``UPDATE``;
  SQLite's ``BEGIN IMMEDIATE``), so history holds exactly what committed
  (``writes``);
- the version a call expects is checked under that same lock, once, by the
  first write (``repository``);
- a change that changes nothing makes no revision and no event (``writes``);
- a draft's id, an idempotency key and an ``If-Match`` are read in
  ``preconditions`` only;
- a key's record and the change it answers commit in the same transaction
  (``idempotency``).
"""
