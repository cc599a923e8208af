"""Running the benchmark: prepare every system's memory of every conversation,
then answer (with a model) or rank (offline) every selected question.

A run directory holds::

    run.json                      settings, mode, model, timings
    prepare.jsonl                 per system and conversation: build time, tokens, index bytes
    answers/<system>.jsonl        per question: question, category, gold, prediction, scores,
                                  judge verdict, evidence ids, retrieved ids, tokens, latency
    retrieval/<system>.jsonl      offline: per question and channel, the ranked ids and recalls
    projects/<sample_id>/         the uac user projects (reused by --resume)
    rag/<sample_id>.npy           the raw-turn vectors of the rag baseline
    report.md, report.png, summary.json

With ``resume`` the question ids already written are skipped and prepared
systems are not prepared again; without it an existing run directory is an
error (so results never mix silently).
"""

from __future__ import annotations

import datetime as _dt
import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from uac import LOCOMO_ANSWERABLE, InputError, LLMClient, LocomoConversation, LocomoQuestion, load_locomo

from ..files import atomic_write_text
from .judge import Judge
from .metrics import RECALL_KS, SESSION_K, evidence_recall, session_recall
from .records import JsonlWriter, done_ids, read_jsonl
from .scoring import score_answer
from .systems import SYSTEMS, FullContextSystem, RagSystem, System, UacSystem, check_reasoning

LLMFactory = Callable[[], "LLMClient | None"]
Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class RunConfig:
    data: Path
    out: Path
    systems: list[str] = field(default_factory=lambda: list(SYSTEMS))
    conversations: list[str] | None = None
    resume: bool = False
    workers: int = 4
    limit_questions: int | None = None
    offline: bool = False
    judge: bool = True
    rag_k: int = 20
    compile: bool = True
    compile_mode: str | None = None
    plot: bool = True
    #: how every reader answers: direct, or step_by_step (reasoning, the answer on the last line)
    reasoning: str = "direct"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["data"] = str(self.data)
        data["out"] = str(self.out)
        return data


def select_questions(conversation: LocomoConversation, *, offline: bool, limit: int | None) -> list[LocomoQuestion]:
    """Categories 1-5 with a model (1-4 offline: retrieval needs evidence), first ``limit`` per conversation."""
    chosen = [q for q in conversation.questions if (q.category in LOCOMO_ANSWERABLE or not offline)]
    return chosen[:limit] if limit is not None else chosen


def retrieval_file(system: str, channel: str) -> str:
    return system if channel == "turns" else f"{system}-{channel}"


class Runner:
    def __init__(
        self,
        config: RunConfig,
        *,
        llm_factory: LLMFactory,
        judge_factory: LLMFactory | None = None,
        log: Log = _stderr,
    ) -> None:
        unknown = [s for s in config.systems if s not in SYSTEMS]
        if unknown:
            raise InputError(f"unknown system {', '.join(unknown)}.", hint=f"Use some of: {', '.join(SYSTEMS)}.")
        if not config.systems:
            raise InputError("no systems selected.", hint=f"Use some of: {', '.join(SYSTEMS)}.")
        if config.workers < 1:
            raise InputError(f"--workers must be at least 1, got {config.workers}.")
        if config.limit_questions is not None and config.limit_questions < 1:
            raise InputError(f"--limit-questions must be at least 1, got {config.limit_questions}.")
        check_reasoning(config.reasoning)
        self.config = config
        self.out = Path(config.out)
        self.log = log
        probe = None if config.offline else llm_factory()
        self.offline = probe is None
        self.llm_factory = llm_factory
        self.model = probe.describe() if probe is not None else None
        self.judge: Judge | None = None
        if not self.offline and config.judge:
            judge_llm = (judge_factory or llm_factory)()
            self.judge = Judge(judge_llm) if judge_llm is not None else None
        self._probe = probe

    # -- setup ------------------------------------------------------------------

    def _build_systems(self) -> dict[str, System]:
        systems: dict[str, System] = {}
        for name in self.config.systems:
            if name == "uac":
                systems[name] = UacSystem(
                    self.config.data,
                    self.out / "projects",
                    self.llm_factory,
                    offline=self.offline,
                    compile=self.config.compile,
                    compile_mode=self.config.compile_mode,
                    reasoning=self.config.reasoning,
                )
            elif name == "rag":
                systems[name] = RagSystem(
                    self._probe, self.out / "rag", k=self.config.rag_k, reasoning=self.config.reasoning
                )
            elif name == "full_context":
                systems[name] = FullContextSystem(self._probe, reasoning=self.config.reasoning)
        return systems

    def _check_out(self) -> None:
        marker = self.out / "run.json"
        if marker.exists() and not self.config.resume:
            raise InputError(
                f"{self.out} already holds a run.",
                hint="Pass --resume to continue it, or choose another --out.",
            )
        if marker.exists():
            previous = json.loads(marker.read_text("utf-8"))
            if previous.get("mode") != self.mode:
                raise InputError(
                    f"{self.out} holds an {previous.get('mode')} run; this one would be {self.mode}.",
                    hint="Resume with the same model settings, or choose another --out.",
                )
            ran = (previous.get("config") or {}).get("reasoning", "direct")
            if not self.offline and ran != self.config.reasoning:
                raise InputError(
                    f"{self.out} holds answers in {ran} reasoning mode; this run would answer {self.config.reasoning}.",
                    hint=f"Resume with --reasoning {ran}, or choose another --out.",
                )

    @property
    def mode(self) -> str:
        return "offline" if self.offline else "online"

    def _write_run_json(self, extra: dict[str, Any]) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        data = {
            "mode": self.mode,
            "model": self.model,
            "judge_model": self.judge.model if self.judge else None,
            "config": self.config.to_json(),
            **extra,
        }
        atomic_write_text(self.out / "run.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n")

    # -- the run ------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        self._check_out()
        conversations = load_locomo(self.config.data, self.config.conversations)
        started = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
        if self.offline:
            self.log(
                "offline mode: no model is configured (or --offline was given); ingesting with the rule-based "
                "extractor and reporting retrieval metrics only. Set UAC_LLM_MODEL (and UAC_LLM_BASE_URL, "
                "OPENAI_API_KEY) to answer and judge the questions."
            )
        else:
            self.log(f"online mode: model {self.model}; judge {self.judge.model if self.judge else 'off'}")
        self._write_run_json({"started": started, "finished": None})
        systems = self._build_systems()
        if self.offline:
            for name in [n for n, s in systems.items() if not s.channels()]:
                self.log(f"{name}: not a retrieval system; nothing to measure offline")
                del systems[name]
        for system in systems.values():
            system.warm_up()
        clock = time.perf_counter()
        cpu = time.process_time()
        self._prepare_all(systems, conversations)
        if self.offline:
            self._rank_all(systems, conversations)
        else:
            self._answer_all(systems, conversations)
        seconds = time.perf_counter() - clock
        finished = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
        self._write_run_json(
            {
                "started": started,
                "finished": finished,
                "seconds": round(seconds, 2),
                "cpu_seconds": round(time.process_time() - cpu, 2),
                "conversations": [c.sample_id for c in conversations],
                "data_sha256": _sha256(self.config.data),
            }
        )
        from .report import write_report

        return write_report(self.out, plot=self.config.plot)

    def _prepare_all(self, systems: dict[str, System], conversations: list[LocomoConversation]) -> None:
        path = self.out / "prepare.jsonl"
        done = {(r["system"], r["sample_id"]) for r in read_jsonl(path)} if self.config.resume else set()
        writer = JsonlWriter(path)
        jobs = [(s, c) for c in conversations for s in systems.values() if (s.name, c.sample_id) not in done]

        def prepare(job: tuple[System, LocomoConversation]) -> None:
            system, conversation = job
            prepared = system.prepare(conversation)
            writer.write(prepared.to_json())
            self.log(f"{conversation.sample_id} {system.name}: prepared in {prepared.seconds:.1f}s")

        self._map(prepare, jobs, parallel=not self.offline)

    def _map(self, fn: Callable[[Any], None], jobs: list[Any], *, parallel: bool) -> None:
        if not parallel or self.config.workers == 1 or len(jobs) < 2:
            for job in jobs:
                fn(job)
            return
        with ThreadPoolExecutor(max_workers=self.config.workers) as pool:
            for future in [pool.submit(fn, job) for job in jobs]:
                future.result()

    # -- offline: ranking -----------------------------------------------------------

    def _rank_all(self, systems: dict[str, System], conversations: list[LocomoConversation]) -> None:
        k = max(RECALL_KS)
        for system in systems.values():
            for channel in system.channels():
                path = self.out / "retrieval" / f"{retrieval_file(system.name, channel)}.jsonl"
                done = done_ids(path) if self.config.resume else set()
                writer = JsonlWriter(path)
                for conversation in conversations:
                    questions = [
                        q
                        for q in select_questions(conversation, offline=True, limit=self.config.limit_questions)
                        if q.qid not in done
                    ]
                    if not questions:
                        continue
                    clock = time.perf_counter()
                    ranked = system.rank(conversation, questions, channel, k)
                    per_question = (time.perf_counter() - clock) / len(questions)
                    for question, items in zip(questions, ranked):
                        writer.write(_retrieval_record(system.name, channel, question, items, per_question))
                    self.log(
                        f"{conversation.sample_id} {retrieval_file(system.name, channel)}: ranked {len(questions)} questions"
                    )

    # -- online: answering ------------------------------------------------------------

    def _answer_all(self, systems: dict[str, System], conversations: list[LocomoConversation]) -> None:
        jobs = []
        for system in systems.values():
            path = self.out / "answers" / f"{system.name}.jsonl"
            done = done_ids(path) if self.config.resume else set()
            writer = JsonlWriter(path)
            for conversation in conversations:
                for question in select_questions(conversation, offline=False, limit=self.config.limit_questions):
                    if question.qid not in done:
                        jobs.append((system, conversation, question, writer))
        total = len(jobs)
        counter = {"done": 0}
        lock = threading.Lock()

        def answer(job: tuple[System, LocomoConversation, LocomoQuestion, JsonlWriter]) -> None:
            system, conversation, question, writer = job
            prediction = system.answer(conversation, question)
            record = _answer_record(system.name, conversation, question, prediction)
            if self.judge is not None and question.category in LOCOMO_ANSWERABLE:
                record["judge"] = self.judge.grade(
                    question.question, question.answer or "", prediction.prediction
                ).to_json()
            writer.write(record)
            with lock:
                counter["done"] += 1
                count = counter["done"]
            if count % 25 == 0 or count == total:
                self.log(f"answered {count}/{total}")

        self._map(answer, jobs, parallel=True)


def _answer_record(
    system: str, conversation: LocomoConversation, question: LocomoQuestion, prediction: Any
) -> dict[str, Any]:
    answerable = question.category in LOCOMO_ANSWERABLE
    return {
        "qid": question.qid,
        "system": system,
        "sample_id": question.sample_id,
        "category": question.category,
        "question": question.question,
        "question_date": conversation.last_date.isoformat(),
        "gold": question.answer,
        "adversarial_answer": question.adversarial_answer,
        "answer": prediction.answer,
        "prediction": prediction.prediction,
        "mode": prediction.mode,
        "reasoning": prediction.reasoning,
        "f1": score_answer(question.category, prediction.prediction, question.answer) if answerable else None,
        "refusal": score_answer(5, prediction.prediction, None) if question.category == 5 else None,
        "judge": None,
        "evidence": list(question.evidence),
        "retrieved_ids": prediction.retrieved_ids,
        "retrieved_turns": prediction.retrieved_turns,
        "evidence_recall": (
            None
            if prediction.retrieved_turns is None
            else evidence_recall(
                question.evidence, [[t] for t in prediction.retrieved_turns], len(prediction.retrieved_turns)
            )
        ),
        "prompt_tokens": prediction.prompt_tokens,
        "completion_tokens": prediction.completion_tokens,
        "latency_seconds": round(prediction.latency_seconds, 4),
    }


def _retrieval_record(
    system: str, channel: str, question: LocomoQuestion, items: list[Any], seconds: float
) -> dict[str, Any]:
    turns = [list(item.turns) for item in items]
    sessions = [item.session for item in items]
    return {
        "qid": question.qid,
        "system": retrieval_file(system, channel),
        "sample_id": question.sample_id,
        "category": question.category,
        "question": question.question,
        "evidence": list(question.evidence),
        "retrieved_ids": [item.id for item in items],
        "retrieved_turns": turns,
        "recall": {str(k): evidence_recall(question.evidence, turns, k) for k in RECALL_KS},
        "turns_covered": {str(k): len({t for item in turns[:k] for t in item}) for k in RECALL_KS},
        "session_recall": session_recall(question.evidence, turns, sessions, SESSION_K),
        "latency_seconds": round(seconds, 5),
    }


def _sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
