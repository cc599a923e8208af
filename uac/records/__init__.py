"""Imported records and what follows them: the records of ``uac import-records`` and
forgetting in the compiled view.

* :mod:`.importer` -- ``uac import-records``: structured records (JSON, JSONL, CSV) to a
  typed domain package, and their removal when the file is gone;
* :mod:`.evolve` -- how a collection's type follows the files imported into it;
* :mod:`.search` -- imported records kept searchable, in step with the view;
* :mod:`.forget` -- forgetting reaches the view: records, ledgers, the compile history
  and the change log.
"""
