"""Phase 1 -- memorize: sessions into the archive and the fact log (and out again).

:mod:`.ingest` extracts and appends a session's facts and indexes them;
:mod:`.forget` removes a fact or a whole session for real.
"""
