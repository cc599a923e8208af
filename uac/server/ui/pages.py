"""The inspector's routes under ``/ui``: one library call per page, rendered with jinja2.

Reads go through :class:`~uac.server.workspace.ServedWorkspace` as the API's
do (the warm instance for files, the search slot for search, a sandbox worker
for the console, a model slot for ask); the two actions (forget, correct) are
writes under the project lock.  Every ``POST`` checks that it comes from the
inspector's own origin and carries the form's CSRF value before it does
anything.  A page opens with a session (:mod:`.sessions`), never with a token.
Errors become pages (:func:`~.render.uac_error_page`), never JSON and never a
server path.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Coroutine
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from fastapi.routing import APIRoute
from starlette.responses import Response

from ... import errors as e
from ...answer.options import AskOptions
from ...index.search import SEARCH_CHANNELS as CHANNELS
from ...names import DOMAIN_NAME, ITEM_ID, PROJECT_NAME, SESSION_ID, TURN_ID
from ..workspace import ServedWorkspace
from . import charts
from .render import error_page, page, redirect, secure, uac_error_page
from .sessions import NONCE_SECONDS, InspectorState, Session
from .signin import COOKIE, LOGIN_COOKIE, MAX_FORM, clear_cookie, cookie_options, from_own_origin, parse_form, same

if TYPE_CHECKING:
    from ...memory import UserMemory

STATIC = Path(__file__).parent / "static"
#: rows shown per page of the facts timeline and of a collection
PAGE_ROWS = 200
#: the longest code the console runs and the longest question ask takes
MAX_CODE = 20_000


class _SignInAgain(Exception):
    """No usable sign-in: go to the sign-in page (``stale``: clear the cookie and say why)."""

    def __init__(self, stale: bool) -> None:
        self.stale = stale


class _Refused(Exception):
    def __init__(self, status: int, title: str, message: str, signed: Session | None = None) -> None:
        self.status, self.title, self.message, self.signed = status, title, message, signed


class UiRoute(APIRoute):
    """Turns the inspector's exceptions into pages and redirects."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except _SignInAgain as exc:
                response = redirect("/ui/signin?" + urlencode({"reason": "stale" if exc.stale else "needed"}))
                if exc.stale:
                    clear_cookie(response, COOKIE, _https(request))
                return response
            except _Refused as exc:
                return error_page(exc.status, exc.title, exc.message, signed=exc.signed)
            except e.UacError as exc:
                return uac_error_page(
                    exc, root=request.app.state.workspace.root, signed=getattr(request.state, "signed", None)
                )

        return run


router = APIRouter(prefix="/ui", route_class=UiRoute, include_in_schema=False)


def _ws(request: Request) -> ServedWorkspace:
    return request.app.state.workspace


def _state(request: Request) -> InspectorState:
    return request.app.state.inspector


def _https(request: Request) -> bool:
    return request.url.scheme == "https"


def _session(request: Request) -> Session | None:
    """The live session the cookie names, if its token is still one of its project's tokens.

    A session whose token was revoked is ended here, at its first request since."""
    sessions = _state(request).sessions
    session = sessions.get(request.cookies.get(COOKIE))
    if session is None:
        return None
    if not _ws(request).tokens(session.project).holds(session.token_id, session.token_sha256):
        sessions.end(session)
        return None
    return session


def _signed_in(request: Request, project: str) -> Session:
    """The session of this request, if it opens ``project``; else a sign-in page or a 403."""
    if COOKIE not in request.cookies:
        raise _SignInAgain(stale=False)
    signed = _session(request)
    if signed is None:
        raise _SignInAgain(stale=True)
    if not PROJECT_NAME.ok(project) or signed.project != project:
        # the same answer whether or not the other project exists
        raise _Refused(
            403, "Not allowed", "You are signed in to another project; this page is not open to your token.", signed
        )
    request.state.signed = signed
    return signed


_FOREIGN = (
    "This form was not sent from the inspector's own pages (another site or another port of this "
    "host), so nothing was changed. Open the inspector's page and send the form from there."
)


async def _form(request: Request, signed: Session | None) -> dict[str, str]:
    if not from_own_origin(request):
        raise _Refused(403, "Sent from elsewhere", _FOREIGN, signed)
    body = await request.body()
    if len(body) > MAX_FORM:
        raise _Refused(413, "Too large", f"The form is larger than {MAX_FORM // 1024} KiB.", signed)
    form = parse_form(body)
    if signed is not None and not same(form.get("csrf"), signed.csrf):
        raise _Refused(
            403,
            "The form has expired",
            "The form's security token is missing or does not match your sign-in, so nothing was changed. "
            "Reload the page and try again.",
            signed,
        )
    return form


#: the ids a page is opened with: each the rule of what ingest accepts.  They travel in
#: query strings and are compared with what the project holds, never made into paths
#: here ("..", refused in ids of API paths, is fine in a session id)
_ID_RULES = {
    "fact": replace(ITEM_ID, what="fact id", no_dotdot=False),
    "session": SESSION_ID,
    "turn": TURN_ID,
}


def _item(value: str | None, what: str) -> str:
    if not value:
        raise e.InputError(f"no {what} id given.", hint="Follow a link from the Facts or Search page.")
    return _ID_RULES[what].check(value)


def _base(signed: Session, active: str, **context: Any) -> dict[str, Any]:
    return {"signed": signed, "project": signed.project, "active": active, **context}


def fact_url(project: str, fact_id: str) -> str:
    return f"/ui/p/{project}/fact?" + urlencode({"id": fact_id})


def turn_url(project: str, session_id: str, turn_id: str) -> str:
    return f"/ui/p/{project}/turn?" + urlencode({"session": session_id, "id": turn_id})


def session_url(project: str, session_id: str, turn_id: str | None = None) -> str:
    url = f"/ui/p/{project}/session?" + urlencode({"id": session_id})
    return url + (f"#t-{quote(turn_id, safe='')}" if turn_id else "")


def record_url(project: str, domain: str, collection: str, position: int) -> str:
    return f"/ui/p/{project}/d/{domain}/{collection}/{position}"


def _links(project: str) -> dict[str, Any]:
    return {
        "fact_url": lambda fid: fact_url(project, fid),
        "turn_url": lambda sid, tid: turn_url(project, sid, tid),
        "session_url": lambda sid, tid=None: session_url(project, sid, tid),
        "record_url": lambda row: record_url(project, row.domain, row.collection, row.position),
    }


# --- signing in and out -----------------------------------------------------------------


@router.get("/static/ui.css")
def stylesheet() -> Response:
    return secure(
        Response((STATIC / "ui.css").read_bytes(), media_type="text/css", headers={"Cache-Control": "max-age=3600"})
    )


@router.get("")
@router.get("/")
def home(request: Request) -> Response:
    signed = _session(request)
    if signed is not None:
        return redirect(f"/ui/p/{signed.project}")
    return redirect("/ui/signin")


_REASONS = {
    "stale": "Your sign-in has ended: it expired, its token was revoked, or the server was restarted. Sign in again.",
    "needed": "Sign in to see that page.",
    "out": "You are signed out.",
}


def _signin_page(request: Request, *, status: int = 200, error: str | None = None, project: str = "") -> Response:
    nonce = _state(request).nonces.issue()
    notice = _REASONS.get(request.query_params.get("reason", ""))
    response = page("signin.html", status=status, nonce=nonce, error=error, notice=notice, project_name=project)
    response.set_cookie(LOGIN_COOKIE, nonce, **cookie_options(_https(request), max_age=NONCE_SECONDS))
    return response


@router.get("/signin")
def signin_form(request: Request) -> Response:
    return _signin_page(request)


@router.post("/signin")
async def signin(request: Request) -> Response:
    form = await _form(request, None)
    state, ws = _state(request), _ws(request)
    # the value this server put in the form it rendered, sent back by the browser it set the cookie in
    nonce = form.get("nonce")
    if not same(nonce, request.cookies.get(LOGIN_COOKIE)) or not state.nonces.redeem(nonce):
        return _signin_page(request, status=403, error="The sign-in form has expired; nothing was sent. Try again.")
    project, token = form.get("project", "").strip(), form.get("token", "").strip()
    # one answer for an unknown project, a bad name and a wrong token: nothing is revealed
    record = ws.tokens(project).verify(token) if PROJECT_NAME.ok(project) and ws.exists(project) else None
    if record is None:
        return _signin_page(
            request, status=401, error="That project name and token do not match.", project=project[:64]
        )
    state.sessions.end(request.cookies.get(COOKIE))  # this browser's previous sign-in, if any, ends
    session_id = state.sessions.create(project, record.id, record.sha256)
    response = redirect(f"/ui/p/{project}")
    lifetime = int(state.sessions.limits.absolute_seconds)
    response.set_cookie(COOKIE, session_id, **cookie_options(_https(request), max_age=lifetime))
    clear_cookie(response, LOGIN_COOKIE, _https(request))
    return response


@router.post("/signout")
async def signout(request: Request) -> Response:
    signed = _session(request)
    if signed is not None:
        await _form(request, signed)
        _state(request).sessions.end(signed)
    response = redirect("/ui/signin?reason=out")
    clear_cookie(response, COOKIE, _https(request))
    return response


# --- overview ------------------------------------------------------------------------------


@router.get("/p/{project}")
async def overview(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    ws = _ws(request)
    view, lag = await ws.read(project, lambda memory: (memory.overview(), memory.view_lag()))
    doctor = await ws.fresh(project, lambda memory: memory.doctor())
    per_month = charts.column_chart(view.facts_per_month, title="Facts per month")
    per_domain = charts.bar_chart(view.records_per_domain, title="Records per domain")
    notice = {"forgotten": "The fact was forgotten."}.get(request.query_params.get("done", ""))
    return page(
        "overview.html",
        **_base(
            signed,
            "overview",
            view=view,
            doctor=doctor,
            per_month=per_month,
            per_domain=per_domain,
            notice=notice,
            lag=lag,
        ),
    )


# --- domains and records ---------------------------------------------------------------------


@router.get("/p/{project}/d/{domain}")
async def domain(project: str, domain: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    DOMAIN_NAME.check(domain)
    tables = await _ws(request).read(project, lambda memory: memory.domain_tables(domain))
    params = request.query_params
    chosen = params.get("c", "")
    shown = []
    for table in tables.collections:
        # the filter and the order of the query string are the chosen table's; the others show as they are
        active = table.name == chosen
        query = params.get("q", "")[:200] if active else ""
        sort = (params.get("sort") or None) if active else None
        descending = active and params.get("dir") == "desc"
        rows = table.view(query=query, sort=sort, descending=descending)
        shown.append(
            {
                "table": table,
                "rows": rows[:PAGE_ROWS],
                "total": len(rows),
                "active": active,
                "query": query,
                "sort": sort,
                "descending": descending,
            }
        )
    return page("domain.html", **_base(signed, "domains", tables=tables, shown=shown, **_links(project)))


@router.post("/p/{project}/d/{domain}")
async def domain_filter(project: str, domain: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    form = await _form(request, signed)
    DOMAIN_NAME.check(domain)
    params = {k: form.get(k, "") for k in ("c", "q", "sort", "dir")}
    return redirect(f"/ui/p/{project}/d/{domain}?" + urlencode({k: v for k, v in params.items() if v}))


@router.get("/p/{project}/d/{domain}/{collection}/{position}")
async def record(project: str, domain: str, collection: str, position: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    DOMAIN_NAME.check(domain)
    if not position.isdigit() or len(position) > 9:
        raise e.NotFound(
            f"there is no record {position!r}: records are numbered from 0.", hint="Open the domain to see its records."
        )
    detail = await _ws(request).read(project, lambda memory: memory.record(domain, collection, int(position)))
    return page("record.html", **_base(signed, "domains", detail=detail, domain=domain, **_links(project)))


# --- facts, turns, sessions --------------------------------------------------------------------


@router.get("/p/{project}/facts")
async def facts(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    params = request.query_params
    query = params.get("q", "")[:200]
    show = "all" if params.get("show") == "all" else "valid"
    start = int(params["from"]) if params.get("from", "").isdigit() else 0
    every = await _ws(request).read(project, lambda memory: memory.facts(include_superseded=True))
    chosen = [f for f in every if show == "all" or f.invalid_at is None]
    if query:
        needle = query.casefold()
        chosen = [f for f in chosen if needle in f.text.casefold() or needle in f.id.casefold()]
    chosen.sort(key=lambda f: ((f.valid_from or f.session_date or _dt.date.min), f.id))
    days = [d for f in every for d in (f.valid_from or f.session_date, f.invalid_at) if d is not None]
    lo = min(days) if days else _dt.date.today()
    hi = max(days + [_dt.date.today()]) if days else lo
    window = chosen[start : start + PAGE_ROWS]
    rows = [
        {
            "fact": f,
            "bar": charts.interval_bar(
                f.valid_from or f.session_date, f.invalid_at, lo, hi, superseded=f.invalid_at is not None
            ),
        }
        for f in window
    ]
    notice = {"forgotten": "The fact was forgotten: it is gone from the log, the indexes and the view."}.get(
        params.get("done", "")
    )
    more = start + PAGE_ROWS < len(chosen)
    return page(
        "facts.html",
        **_base(
            signed,
            "facts",
            rows=rows,
            total=len(chosen),
            query=query,
            show=show,
            lo=lo,
            hi=hi,
            start=start,
            more=more,
            page_rows=PAGE_ROWS,
            notice=notice,
            **_links(project),
        ),
    )


#: changes on one page of the timeline (the newest)
CHANGE_ROWS = 200


@router.get("/p/{project}/changes")
async def changes(project: str, request: Request) -> Response:
    """The timeline of the view's changes, newest first, filterable by domain; each change
    links to its record (the domain's table filtered to it), its facts and their turns."""
    signed = _signed_in(request, project)
    chosen = request.query_params.get("domain", "")[:64] or None
    if chosen is not None:
        DOMAIN_NAME.check(chosen)

    def work(memory: UserMemory) -> tuple[Any, list[str], Any]:
        report = memory.history(domain=chosen, limit=CHANGE_ROWS)
        domains = memory.changed_domains()
        return report, domains, memory.view_lag()

    report, domains, lag = await _ws(request).read(project, work)
    rows = [entry.to_json() for entry in reversed(report.changes)]
    return page(
        "changes.html",
        **_base(
            signed,
            "changes",
            rows=rows,
            total=report.total,
            domains=domains,
            chosen=chosen,
            damaged=report.damaged_lines,
            lag=lag,
            **_links(project),
        ),
    )


@router.post("/p/{project}/facts")
async def facts_filter(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    form = await _form(request, signed)
    params = {"q": form.get("q", ""), "show": form.get("show", "")}
    return redirect(f"/ui/p/{project}/facts?" + urlencode({k: v for k, v in params.items() if v}))


@router.get("/p/{project}/fact")
async def fact(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    fact_id = _item(request.query_params.get("id"), "fact")
    detail = await _ws(request).read(project, lambda memory: memory.fact(fact_id))
    notice = {"corrected": "Your correction was saved; the facts it replaces are no longer valid."}.get(
        request.query_params.get("done", "")
    )
    return page("fact.html", **_base(signed, "facts", detail=detail, notice=notice, **_links(project)))


@router.get("/p/{project}/turn")
async def turn(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    session_id = _item(request.query_params.get("session"), "session")
    turn_id = _item(request.query_params.get("id"), "turn")
    detail = await _ws(request).read(project, lambda memory: memory.turn(session_id, turn_id))
    return page("turn.html", **_base(signed, "facts", detail=detail, **_links(project)))


@router.get("/p/{project}/session")
async def session(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    session_id = _item(request.query_params.get("id"), "session")

    def work(memory: UserMemory) -> Any:
        found = memory.session(session_id) if session_id in {s for s in _session_ids(memory)} else None
        if found is None:
            raise e.SessionNotFound(f"no session {session_id!r} in this project.", hint="{do:find_sessions}.")
        cited: dict[str, list[Any]] = {}
        for f in memory.facts(include_superseded=True):
            if f.session_id == session_id:
                for turn_id in f.evidence:
                    cited.setdefault(turn_id, []).append(f)
        return found, cited

    found, cited = await _ws(request).read(project, work)
    return page("session.html", **_base(signed, "facts", session=found, cited=cited, **_links(project)))


def _session_ids(memory: UserMemory) -> list[str]:
    from ...sessions.archive import Archive

    return Archive(memory.project.paths.sessions).ids()


# --- search, console, ask ------------------------------------------------------------------------


@router.get("/p/{project}/search")
async def search_form(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    return page("search.html", **_base(signed, "search", query="", channel="all", hits=None, **_links(project)))


@router.post("/p/{project}/search")
async def search(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    form = await _form(request, signed)
    query = form.get("q", "").strip()[:2000]
    channel = form.get("channel", "all")
    if channel not in CHANNELS:
        channel = "all"
    hits = None
    if query:
        hits = await _ws(request).search(project, lambda memory: memory.search(query, k=20, channel=channel))
    return page("search.html", **_base(signed, "search", query=query, channel=channel, hits=hits, **_links(project)))


def _sample_code(memory: UserMemory) -> str:
    """A first program for the console: the size of each collection of the state."""
    from ...browse import domain_names

    lines = ["# each collection is a global and lives under its domain; set `result` to see a value"]
    pairs = [(d, c.name) for d in domain_names(memory.context) for c in memory.domain_tables(d).collections][:12]
    if not pairs:
        return "\n".join(lines + ["result = 6 * 7", ""])
    lines.append("result = {")
    lines += [f'    "{d}.{c}": len({d}.{c}),' for d, c in pairs]
    lines += ["}", ""]
    return "\n".join(lines)


@router.get("/p/{project}/console")
async def console_form(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    code = await _ws(request).read(project, _sample_code)
    return page("console.html", **_base(signed, "console", code=code, run=None))


@router.post("/p/{project}/console")
async def console(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    form = await _form(request, signed)
    code = form.get("code", "")
    if len(code) > MAX_CODE:
        raise e.InputError(f"the code is longer than {MAX_CODE:,} characters.", hint="Run a shorter program.")
    result = await _ws(request).run_sandbox(project, lambda memory: memory.run(code).to_json())
    import json

    shown = json.dumps(result.get("result"), indent=2, ensure_ascii=False, default=str)
    return page("console.html", **_base(signed, "console", code=code, run=result, shown=shown))


@router.get("/p/{project}/ask")
async def ask_form(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    configured = await _ws(request).read(project, lambda memory: memory.llm is not None)
    return page("ask.html", **_base(signed, "ask", configured=configured, question="", answer=None))


@router.post("/p/{project}/ask")
async def ask(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    form = await _form(request, signed)
    question = form.get("question", "").strip()
    if not question:
        raise e.InputError("a question is needed.", hint="Type a question about the user.")
    if len(question) > MAX_CODE:
        raise e.InputError(f"the question is longer than {MAX_CODE:,} characters.", hint="Ask a shorter question.")
    ws = _ws(request)
    configured = await ws.read(project, lambda memory: memory.llm is not None)
    if not configured:
        return page("ask.html", **_base(signed, "ask", configured=False, question=question, answer=None))
    answer = await ws.ask(project, lambda memory: memory.ask(question, AskOptions()))
    return page(
        "ask.html", **_base(signed, "ask", configured=True, question=question, answer=answer, **_links(project))
    )


# --- actions: forget, correct ------------------------------------------------------------------------


@router.get("/p/{project}/forget")
async def forget_confirm(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    fact_id = _item(request.query_params.get("fact"), "fact")
    detail = await _ws(request).read(project, lambda memory: memory.fact(fact_id))
    return page("forget.html", **_base(signed, "facts", detail=detail, **_links(project)))


@router.post("/p/{project}/forget")
async def forget(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    form = await _form(request, signed)
    fact_id = _item(form.get("fact"), "fact")
    if form.get("confirm") != "yes":
        return redirect(f"/ui/p/{project}/forget?" + urlencode({"fact": fact_id}))
    await _ws(request).write(project, "forget", lambda memory: memory.forget(fact=fact_id))
    return redirect(f"/ui/p/{project}/facts?done=forgotten")


@router.get("/p/{project}/correct")
async def correct_form(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    wanted = [_item(v, "fact") for v in request.query_params.getlist("supersedes")][:20]
    replaced = await _ws(request).read(project, lambda memory: [memory.fact(i).fact for i in wanted])
    return page("correct.html", **_base(signed, "correct", replaced=replaced, text="", error=None, **_links(project)))


@router.post("/p/{project}/correct")
async def correct(project: str, request: Request) -> Response:
    signed = _signed_in(request, project)
    body = await request.body()
    form = await _form(request, signed)
    from urllib.parse import parse_qs

    wanted = [_item(v, "fact") for v in parse_qs(body.decode("utf-8", "replace")).get("supersedes", [])][:20]
    text = form.get("text", "")
    ws = _ws(request)
    if not text.strip():
        replaced = await ws.read(project, lambda memory: [memory.fact(i).fact for i in wanted])
        return page(
            "correct.html",
            status=400,
            **_base(
                signed,
                "correct",
                replaced=replaced,
                text=text,
                error="A correction needs its text; nothing was saved.",
                **_links(project),
            ),
        )
    report = await ws.write(project, "correct", lambda memory: memory.correct(text, supersedes=wanted))
    return redirect(fact_url(project, report.fact.id) + "&done=corrected")
