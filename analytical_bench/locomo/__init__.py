"""LoCoMo evaluation of uac: end-to-end recall with any model, offline retrieval metrics without one.

``python -m analytical_bench.locomo run --data locomo10.json`` ingests each
conversation into its own user project and, with a model configured, answers
every question (uac, full-context and plain-RAG baselines), scores it with the
official token-F1 rules and a lenient LLM judge; without a model it reports
evidence and session recall of uac's channels against plain RAG.  See
``docs/locomo.md``.  The LoCoMo file is read by uac's own reader
(``uac.load_locomo``: conversations, sessions, QA items).
"""

from .scoring import normalize_answer, score_answer, token_f1

__all__ = ["normalize_answer", "score_answer", "token_f1"]
