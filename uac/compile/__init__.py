"""Phase 2 -- compile: facts and records turned into the typed view.

The pipelines write ``domains/<d>/`` through the view (:mod:`uac.view`) and
speak the dialect (:mod:`uac.dialect`) with the model:

* :mod:`.dispatch` -- :func:`~.dispatch.compile_project`, which picks the mode;
* :mod:`.incremental` -- the default LLM mode, domain by domain in budgeted calls;
* :mod:`.bounded` -- the paper's mode, one call over a fixed prefix of the facts;
* :mod:`.llm_shared` -- what the LLM modes share: prompt budgets, candidate checks;
* :mod:`.repair` -- the one repair loop every mode that asks the model uses;
* :mod:`.routing` -- facts to domains: the keyword classifier and the LLM routing;
* :mod:`.offline` -- the model-free mode, a dated event timeline per domain;
* :mod:`.report` -- what a compile did, and the compile history.

Records import, the records search index and forgetting in the view are
:mod:`uac.records`.
"""
