"""Untrusted text on the inspector's pages: isolated in ``<bdi>``, its control characters shown as
codes; and every turn id that ingest accepts can be opened."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from uac.errors import InputError
from uac.memory import UserMemory
from uac.server.http import create_app
from uac.server.tokens import TokenStore

pytestmark = pytest.mark.embeddings

OWN = {"Origin": "http://testserver"}
RLO, LRO, RLI, PDI, BEL = "\u202e", "\u202d", "\u2067", "\u2069", "\x07"
#: characters no page may hold as they are (they reorder or hide text)
RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

CHAT = {
    "session_id": "notes..2023",
    "date": "2023-05-08",
    "messages": [
        {"role": "user", "name": f"Mal{RLO}lory", "content": f"I paid {RLO}$100 for the bike and it was worth it."},
        {"role": "user", "content": f"I moved to {RLI}Lisbon in March{BEL} and I love it."},
    ],
}
#: LoCoMo dia_ids as a file may hold them: any text
ODD_IDS = ["D1: 3", "turn #2 / a..b?x=1&y=2", f"{RLO}D1:9", 'ü 1 "quoted" <b>', " "]
LOCOMO = {
    "sample_id": "odd",
    "conversation": {
        "speaker_a": "Eve",
        "speaker_b": "Sam",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Eve", "dia_id": ODD_IDS[0], "text": "I bought a red bike yesterday."},
            {"speaker": "Sam", "dia_id": ODD_IDS[1], "text": "Nice!"},
            {"speaker": "Eve", "dia_id": ODD_IDS[2], "text": "I adopted a cat named Tom last week."},
            {"speaker": "Sam", "dia_id": ODD_IDS[3], "text": "ok"},
            {"speaker": "Eve", "dia_id": ODD_IDS[4], "text": "I started learning the cello in March."},
            {"speaker": "Sam", "text": "a turn without a dia_id"},
        ],
    },
    "qa": [],
}
STORES = [{"name": f"Bike {LRO}shop", "city": f"Lis{BEL}bon"}, {"name": "Tea house", "city": "Porto"}]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    base = tmp_path_factory.mktemp("text")
    root = base / "root"
    memory = UserMemory.create(root / "eve", user_name="Eve")
    for name, content in (("chat.json", CHAT), ("locomo.json", LOCOMO), ("stores.json", STORES)):
        (base / name).write_text(json.dumps(content), "utf-8")
    memory.ingest(base / "chat.json")
    memory.ingest(base / "locomo.json")
    memory.import_records(base / "stores.json", domain="shopping", collection="stores")
    report = memory.correct(f"My bike cost {RLO}$100, not more")
    memory.close()
    token, _ = TokenStore.for_project(root / "eve").create("test")
    with TestClient(create_app(root), headers=OWN) as client:
        page = client.get("/ui/signin")
        nonce = re.search(r'name="nonce" value="([^"]+)"', page.text).group(1)
        assert client.post("/ui/signin", data={"nonce": nonce, "project": "eve", "token": token}).status_code == 200
        yield client, report.fact.id


class _Texts(HTMLParser):
    """The text of a page's body, each piece with whether a ``<bdi>`` holds it."""

    VOID = {"br", "input", "img", "meta", "link", "hr"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.pieces: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if "body" in self.stack and data.strip():
            self.pieces.append((data, "bdi" in self.stack))


def texts(html: str) -> list[tuple[str, bool]]:
    parser = _Texts()
    parser.feed(html)
    return parser.pieces


def isolated(html: str, words: str) -> bool:
    """True if ``words`` appear on the page, and only inside ``<bdi>``."""
    found = [inside for text, inside in texts(html) if words in text]
    return bool(found) and all(found)


def pages(client, fact_id):
    facts = client.get("/ui/p/eve/facts?show=all").text
    ids = sorted(set(re.findall(r'href="/ui/p/eve/fact\?id=([^"&]+)"', facts)))
    urls = [
        "/ui/p/eve",
        "/ui/p/eve/facts?show=all",
        "/ui/p/eve/d/shopping",
        "/ui/p/eve/d/shopping/stores/0",
        "/ui/p/eve/session?id=notes..2023",
        "/ui/p/eve/session?id=odd_s1",
        f"/ui/p/eve/correct?supersedes={fact_id}",
        f"/ui/p/eve/forget?fact={fact_id}",
    ]
    urls += [f"/ui/p/eve/fact?id={i}" for i in ids]
    for session in ("notes..2023", "odd_s1"):
        page = client.get(f"/ui/p/eve/session?id={session}").text
        urls += [u.replace("&amp;", "&") for u in re.findall(r'href="(/ui/p/eve/turn\?[^"]+)"', page)]
    return urls


def test_untrusted_text_is_isolated_and_its_control_characters_are_shown(served):
    client, fact_id = served
    seen = set()
    for url in pages(client, fact_id):
        page = client.get(url)
        assert page.status_code == 200, url
        assert not RAW.search(page.text), (url, RAW.search(page.text))
        for text, inside in texts(page.text):
            if re.search(r"U\+(202[A-E]|206[6-9]|00[0-9A-F]{2})", text):
                assert inside, (url, text)  # a control character's code is part of the isolated text
                seen.add(text)
        seen.add(url)
    assert {"U+202E", "U+2067", "U+0007", "U+202D"} <= seen

    fact = client.get(f"/ui/p/eve/fact?id={fact_id}").text
    assert isolated(fact, "$100, not more") and isolated(fact, "My bike cost")
    assert '<span class="ctl" title="control character">U+202E</span>' in fact
    assert "<title>Fact " in fact and RLO not in fact
    chat = client.get("/ui/p/eve/session?id=notes..2023").text
    for words in ("Mal", "lory", "$100 for the bike", "Lisbon in March", "and I love it."):
        assert isolated(chat, words), words
    table = client.get("/ui/p/eve/d/shopping").text
    assert isolated(table, "Bike ") and isolated(table, "Tea house")
    assert '<bdi>Bike <span class="ctl" title="control character">U+202D</span>shop</bdi>' in table
    record = client.get("/ui/p/eve/d/shopping/stores/0").text
    assert isolated(record, "Lis") and "U+0007" in record
    # a search hit and a console result are isolated too
    csrf = re.search(r'name="csrf" value="([^"]+)"', fact).group(1)
    hits = client.post("/ui/p/eve/search", data={"csrf": csrf, "q": "bike cost", "channel": "facts"}).text
    assert isolated(hits, "$100, not more") and not RAW.search(hits)
    code = f"print('alpha{RLO}beta')\nresult = 'gamma{RLI}delta'"
    run = client.post("/ui/p/eve/console", data={"csrf": csrf, "code": code}).text
    # the code box keeps what was typed, exactly; what the run printed and returned is isolated
    shown = re.sub(r"<textarea.*?</textarea>", "", run, flags=re.S)
    assert not RAW.search(shown) and isolated(shown, "alpha") and isolated(shown, "gamma")
    assert "U+202E" in shown and "U+2067" in shown


def test_every_turn_id_ingest_accepts_opens_in_the_inspector(served):
    client, _ = served
    session = client.get("/ui/p/eve/session?id=odd_s1")
    assert session.status_code == 200
    links = [u.replace("&amp;", "&") for u in re.findall(r'href="(/ui/p/eve/turn\?[^"]+)"', session.text)]
    opened = []
    for url in links:
        turn_id = parse_qs(urlsplit(url).query, keep_blank_values=True)["id"][0]
        page = client.get(url)
        assert page.status_code == 200, (url, page.text[:300])
        back = re.search(r'id="session-link" href="([^"]+)"', page.text).group(1).replace("&amp;", "&")
        anchor = urlsplit(back).fragment
        assert f'id="{anchor}"' in session.text  # the link back lands on the turn in the session
        opened.append(turn_id)
    assert opened == [*ODD_IDS, "D1:6"]
    # the turn's page names it, as text
    page = client.get("/ui/p/eve/turn", params={"session": "odd_s1", "id": ODD_IDS[3]}).text
    assert "ü 1 &#34;quoted&#34; &lt;b&gt;" in page
    # and a session whose id has '..' in it opens, with its facts
    chat = client.get("/ui/p/eve/session?id=notes..2023")
    assert chat.status_code == 200
    fact_ids = re.findall(r'href="/ui/p/eve/fact\?id=([^"]+)"', chat.text)
    assert fact_ids and all(client.get(f"/ui/p/eve/fact?id={i}").status_code == 200 for i in fact_ids)


def test_ingest_refuses_a_turn_id_too_long_to_link_to(tmp_path):
    memory = UserMemory.create(tmp_path / "p", user_name="P")
    item = json.loads(json.dumps(LOCOMO))
    item["conversation"]["session_1"][1]["dia_id"] = "D" * 201
    path = tmp_path / "long.json"
    path.write_text(json.dumps(item), "utf-8")
    with pytest.raises(InputError) as caught:
        memory.ingest(path)
    assert "turn 2 has an id of 201 characters" in caught.value.message and "1-200" in caught.value.message
    assert "dia_id" in (caught.value.hint or "")
    assert memory.sessions() == [] and memory.facts() == []
    item["conversation"]["session_1"][1]["dia_id"] = "D" * 200
    path.write_text(json.dumps(item), "utf-8")
    assert memory.ingest(path).sessions_added == ["odd_s1"]
    memory.close()
