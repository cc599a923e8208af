"""The inspector in a real browser: Debian's chromium, headless, driven by selenium
through Debian's chromedriver (nothing is downloaded).  Skipped, with the reason,
where chromium or its driver is not installed; CI installs both (``.ci/run``).

Set ``INSPECTOR_SCREENSHOTS=DIR`` to save a screenshot of each page into DIR
(``docs/images/ui`` holds the ones ``docs/ui.md`` shows).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from uac.memory import UserMemory
from uac.server.tokens import TokenStore

from .conftest import ALICE_SESSION, BOB_SESSION, REPO, child_env, free_port, make_root, stop, wait_http

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None or DRIVER is None,
        reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
    ),
]

HOSTILE = {
    "date": "2023-07-02",
    "messages": [
        {
            "role": "user",
            "content": 'My notes say <script>document.title="pwned"</script> and '
            "<a href=\"javascript:document.title='clicked'\">open me</a>.",
        },
        {"role": "user", "content": "Also <img src=x onerror=\"document.title='img'\"> javascript:alert(1)"},
    ],
}
#: a correction whose text holds a right-to-left override: the rest of its row must stay as it is
BIDI = "Bidi check: left \u202eright end"


@pytest.fixture
def served_ui(tmp_path):
    alice = dict(ALICE_SESSION)
    root = make_root(tmp_path / "root", {"alice": alice, "bob": BOB_SESSION})
    memory = UserMemory.open(root.root / "alice")
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(HOSTILE), "utf-8")
    memory.ingest(hostile)
    memory.correct(BIDI)
    memory.compile()
    memory.close()
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uac",
            "serve",
            "http",
            "--root",
            str(root.root),
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + "/v1/health", proc)
        yield base, root
    finally:
        stop(proc)


@pytest.fixture
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (the dev extra)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,1000",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # to read the policy's reports
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def shot(driver, name: str) -> None:
    folder = os.environ.get("INSPECTOR_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


def sign_in(driver, base: str, project: str, token: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(base + "/ui/")
    driver.find_element(By.ID, "project").send_keys(project)
    driver.find_element(By.ID, "token").send_keys(token)
    go(driver, driver.find_element(By.ID, "signin"))


def replaced(element):
    """A wait condition: ``element`` no longer belongs to the page.  Chromium reports a
    node of a page that was navigated away from either as a stale element or as a node
    that "does not belong to the document"; both mean the same here."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    def check(_driver) -> bool:
        try:
            element.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as exc:
            if "does not belong to the document" in str(exc):
                return True
            raise
        return False

    return check


def go(driver, element) -> None:
    """Click ``element`` and wait until the next page has replaced this one."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    old = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, 60).until(replaced(old))
    WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.readyState") == "complete")


#: the left edge, in the viewport, of the first place ``arguments[1]`` is written in element ``arguments[0]``
WORD_LEFT = """
const [element, word] = arguments;
const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const at = node.data.indexOf(word);
  if (at >= 0) {
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + word.length);
    return range.getBoundingClientRect().left;
  }
}
return null;
"""


def no_alert(driver) -> bool:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        driver.switch_to.alert  # noqa: B018 - raises while no alert is open
    except NoAlertPresentException:
        return True
    return False


def test_the_inspector_in_a_browser(served_ui, browser):
    from selenium.webdriver.common.by import By

    base, root = served_ui
    driver = browser
    sign_in(driver, base, "alice", root.tokens["alice"])
    assert driver.current_url == base + "/ui/p/alice"
    assert driver.find_element(By.ID, "signed-project").text == "alice"
    assert driver.find_elements(By.CSS_SELECTOR, "svg.chart rect.bar")  # the pictures are drawn
    assert "uac_" not in driver.current_url
    # the session cookie is not readable by scripts on the page
    assert "uac_ui" not in driver.execute_script("return document.cookie")
    shot(driver, "overview")

    # the evidence chain: domain -> record -> fact -> turn -> session, one click a step
    go(driver, driver.find_element(By.CSS_SELECTOR, "#domains a"))
    assert "/ui/p/alice/d/" in driver.current_url
    shot(driver, "domain")
    go(driver, driver.find_element(By.CSS_SELECTOR, "a.record-link"))
    record_fields = driver.find_element(By.ID, "record").text
    shot(driver, "record")
    go(driver, driver.find_element(By.CSS_SELECTOR, "#sources a.fact-link"))
    fact_id = driver.find_element(By.ID, "fact-id").text
    fact_text = driver.find_element(By.ID, "fact-text").text
    assert fact_id and fact_text
    shot(driver, "fact")
    go(driver, driver.find_element(By.CSS_SELECTOR, "#evidence a.turn-link"))
    turn_text = driver.find_element(By.ID, "turn-text").text
    assert turn_text
    go(driver, driver.find_element(By.ID, "session-link"))
    assert fact_id in driver.find_element(By.ID, "transcript").text  # the session shows what was read from it
    assert driver.find_element(By.ID, "session-id").text
    shot(driver, "session")
    assert record_fields

    # sorting a table by a column, both ways
    driver.get(base + "/ui/p/alice")
    go(driver, driver.find_element(By.CSS_SELECTOR, "#domains a"))
    headers = driver.find_elements(By.CSS_SELECTOR, "a.sort")
    text_header = next(h for h in headers if h.text.startswith("text"))
    go(driver, text_header)
    assert "sort=text" in driver.current_url and "▲" in driver.find_element(By.LINK_TEXT, "text ▲").text

    # search: channel and evidence shown
    go(driver, driver.find_element(By.LINK_TEXT, "Search"))
    driver.find_element(By.ID, "search-query").send_keys("Lisbon trip")
    go(driver, driver.find_element(By.ID, "search-button"))
    hits = driver.find_element(By.ID, "hits").text
    assert "Lisbon" in hits and ("facts" in hits or "archive" in hits)
    assert driver.find_elements(By.CSS_SELECTOR, "#hits a.turn-link")
    shot(driver, "search")

    # the sandbox console runs code over the state
    go(driver, driver.find_element(By.LINK_TEXT, "Console"))
    assert "len(" in driver.find_element(By.ID, "code").get_attribute("value")  # a first program to run
    go(driver, driver.find_element(By.ID, "run"))
    counts = json.loads(driver.find_element(By.ID, "run-result").text)
    assert counts and all(isinstance(n, int) and n >= 0 for n in counts.values())
    shot(driver, "console")
    code = driver.find_element(By.ID, "code")
    code.clear()
    code.send_keys("result = [n * n for n in range(4)]")
    go(driver, driver.find_element(By.ID, "run"))
    assert json.loads(driver.find_element(By.ID, "run-result").text) == [0, 1, 4, 9]

    # the facts timeline
    go(driver, driver.find_element(By.LINK_TEXT, "Facts"))
    assert driver.find_elements(By.CSS_SELECTOR, "#timeline svg.interval")
    shot(driver, "facts")

    # conversation text with <script>, an onerror image and javascript: links is shown as text
    rows = driver.find_element(By.ID, "timeline").text
    assert '<script>document.title="pwned"</script>' in rows
    assert "javascript:" in rows
    assert not driver.find_elements(By.CSS_SELECTOR, 'a[href^="javascript:"]')
    assert not driver.find_elements(By.CSS_SELECTOR, "main img, main script")
    assert driver.title not in ("pwned", "clicked", "img") and no_alert(driver)
    # open a hostile fact's page, its turn and its session too
    hostile_link = next(
        a
        for a in driver.find_elements(By.CSS_SELECTOR, "#timeline a.fact-link")
        if "<script>" in a.find_element(By.XPATH, "./..").text
    )
    go(driver, hostile_link)
    go(driver, driver.find_element(By.CSS_SELECTOR, "#evidence a.turn-link"))
    go(driver, driver.find_element(By.ID, "session-link"))
    assert "<script>" in driver.find_element(By.ID, "transcript").text
    assert not driver.find_elements(By.CSS_SELECTOR, 'main a[href^="javascript:"], main img, main script')
    assert driver.title.endswith("uac inspector") and no_alert(driver)

    # a right-to-left override in a fact is shown as a code and reorders nothing after it
    driver.get(base + "/ui/p/alice/facts")
    cell = next(
        a.find_element(By.XPATH, "./..")
        for a in driver.find_elements(By.CSS_SELECTOR, "#timeline a.fact-link")
        if "Bidi check" in a.find_element(By.XPATH, "./..").text
    )
    x = driver.execute_script(WORD_LEFT, cell, "left"), driver.execute_script(WORD_LEFT, cell, "right end")
    tag = cell.find_element(By.CSS_SELECTOR, ".tag").rect
    assert x[0] < x[1] < tag["x"], (x, tag)  # left to right, the tag after the text
    assert "Bidi check: left U+202Eright end" in cell.text

    # forget a fact after confirming: the confirmation lists the records citing it
    driver.get(base + "/ui/p/alice/facts")
    lisbon = next(
        a
        for a in driver.find_elements(By.CSS_SELECTOR, "#timeline a.fact-link")
        if "Lisbon" in a.find_element(By.XPATH, "./..").text
    )
    lisbon_id = lisbon.text
    go(driver, lisbon)
    go(driver, driver.find_element(By.ID, "forget-link"))
    assert driver.find_elements(By.CSS_SELECTOR, "#citing li")
    shot(driver, "forget")
    go(driver, driver.find_element(By.ID, "confirm-forget"))
    assert "forgotten" in driver.find_element(By.ID, "notice").text
    assert lisbon_id not in driver.find_element(By.ID, "timeline").text
    driver.get(base + "/ui/p/alice/fact?id=" + lisbon_id)
    assert "no fact" in driver.find_element(By.ID, "error-message").text

    # a correction from a fact's page
    driver.get(base + "/ui/p/alice/facts")
    rex = next(
        a
        for a in driver.find_elements(By.CSS_SELECTOR, "#timeline a.fact-link")
        if "retriever" in a.find_element(By.XPATH, "./..").text
    )
    go(driver, rex)
    go(driver, driver.find_element(By.ID, "correct-link"))
    driver.find_element(By.ID, "correction").send_keys("Rex is a labrador.")
    shot(driver, "correct")
    go(driver, driver.find_element(By.ID, "save-correction"))
    assert driver.find_element(By.ID, "fact-text").text == "Rex is a labrador."

    # bob's token cannot open alice's pages
    go(driver, driver.find_element(By.CSS_SELECTOR, ".signout button"))
    sign_in(driver, base, "bob", root.tokens["bob"])
    assert driver.current_url == base + "/ui/p/bob"
    driver.get(base + "/ui/p/alice/facts")
    assert "another project" in driver.find_element(By.ID, "error-message").text
    assert "Rex" not in driver.page_source
    driver.get(base + "/ui/p/alice/fact?id=" + fact_id)
    assert "Rex" not in driver.page_source and fact_text not in driver.page_source


@pytest.fixture
def bare_server(tmp_path):
    """A server over one project with a token and nothing ingested."""
    root = tmp_path / "root"
    UserMemory.create(root / "alice", user_name="Alice").close()
    token, _ = TokenStore.for_project(root / "alice").create("browser")
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uac",
            "serve",
            "http",
            "--root",
            str(root),
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + "/v1/health", proc)
        yield base, token
    finally:
        stop(proc)


FETCH = """
const done = arguments[arguments.length - 1];
fetch(arguments[0], {credentials: "include"})
  .then(r => r.text().then(t => done("read " + r.status + " " + t.slice(0, 2000))), e => done("refused " + e));
"""
OPEN = """
const done = arguments[arguments.length - 1];
const w = window.open(arguments[0]);
if (!w) { done("no window"); return; }
setTimeout(() => { try { done("read " + w.document.body.innerText); } catch (e) { done("refused " + e); } }, 3000);
"""


def _foreign_loads_were_blocked(driver, base: str) -> None:
    """Every resource the page asked for is this server's, or the policy blocked it (and said so)."""
    names = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    reports = " ".join(entry["message"] for entry in driver.get_log("browser"))
    for name in names:
        if not name.startswith(base + "/"):
            assert name in reports and "Content Security Policy" in reports, (name, reports)


def test_the_api_docs_render_offline_and_cannot_reach_the_inspector(bare_server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, token = bare_server
    driver = browser
    sign_in(driver, base, "alice", token)
    assert driver.current_url == base + "/ui/p/alice"

    driver.get(base + "/docs")
    title = ".swagger-ui .info .title"
    WebDriverWait(driver, 60).until(lambda d: "uac" in "".join(e.text for e in d.find_elements(By.CSS_SELECTOR, title)))
    assert len(driver.find_elements(By.CSS_SELECTOR, ".swagger-ui .opblock")) >= 20  # every route is listed
    _foreign_loads_were_blocked(driver, base)
    # a script on the docs page reaches the API, but not the signed-in inspector
    assert driver.execute_async_script(FETCH, "/v1/health").startswith("read 200")
    for url in ("/ui/p/alice/facts", "/ui/p/alice/console"):
        assert driver.execute_async_script(FETCH, url).startswith("refused"), url
    assert driver.execute_async_script(OPEN, "/ui/p/alice/facts").startswith("refused")

    driver.get(base + "/redoc")
    WebDriverWait(driver, 60).until(lambda d: "uac" in "".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "h1")))
    assert "/v1/projects/{project}/search" in driver.page_source
    _foreign_loads_were_blocked(driver, base)
    assert driver.execute_async_script(FETCH, "/ui/p/alice/facts").startswith("refused")


def test_the_changes_page_in_a_browser(served_ui, browser):
    """The timeline of the view's changes: filtered by a domain, a change followed to its
    record and to its fact (and the fact's turn), and the fact forgotten from the change."""
    from selenium.webdriver.common.by import By

    base, root = served_ui
    driver = browser
    sign_in(driver, base, "alice", root.tokens["alice"])
    go(driver, driver.find_element(By.CSS_SELECTOR, 'nav a[href="/ui/p/alice/changes"]'))
    assert driver.current_url == base + "/ui/p/alice/changes"
    everything = driver.find_elements(By.CSS_SELECTOR, "#changes tr.change")
    assert everything
    shot(driver, "changes")

    # filter by the domain of a change whose fact can be forgotten
    row = next(r for r in everything if r.find_elements(By.CSS_SELECTOR, "a.forget-link"))
    domain = row.find_element(By.CSS_SELECTOR, "a.record-link").text.split("/", 1)[0]
    go(driver, next(a for a in driver.find_elements(By.CSS_SELECTOR, "#change-domains a") if a.text == domain))
    assert driver.current_url == f"{base}/ui/p/alice/changes?domain={domain}"
    assert driver.find_element(By.CSS_SELECTOR, "#change-domains a.active").text == domain
    rows = driver.find_elements(By.CSS_SELECTOR, "#changes tr.change")
    assert rows and len(rows) <= len(everything)
    assert all(r.find_element(By.CSS_SELECTOR, "a.record-link").text.startswith(domain + "/") for r in rows)
    filtered = driver.current_url

    # a change -> its record: the domain's table, filtered to it, and the record's page
    row = next(r for r in rows if r.find_elements(By.CSS_SELECTOR, "a.forget-link"))
    fact_id = row.find_element(By.CSS_SELECTOR, "a.fact-link").text
    go(driver, row.find_element(By.CSS_SELECTOR, "a.record-link"))
    assert f"/ui/p/alice/d/{domain}?" in driver.current_url
    go(driver, driver.find_element(By.CSS_SELECTOR, "a.record-link"))
    assert driver.find_element(By.ID, "record").text
    assert fact_id in driver.find_element(By.ID, "sources").text  # the record cites the change's fact

    # the change -> its fact -> the turn it was read from
    driver.get(filtered)
    row = next(
        r
        for r in driver.find_elements(By.CSS_SELECTOR, "#changes tr.change")
        if fact_id in [a.text for a in r.find_elements(By.CSS_SELECTOR, "a.fact-link")]
    )
    go(driver, next(a for a in row.find_elements(By.CSS_SELECTOR, "a.fact-link") if a.text == fact_id))
    assert driver.find_element(By.ID, "fact-id").text == fact_id
    fact_text = driver.find_element(By.ID, "fact-text").text
    go(driver, driver.find_element(By.CSS_SELECTOR, "#evidence a.turn-link"))
    assert driver.find_element(By.ID, "turn-text").text

    # forget the fact from the change: confirmed, gone from the timeline too
    driver.get(filtered)
    row = next(
        r
        for r in driver.find_elements(By.CSS_SELECTOR, "#changes tr.change")
        if fact_id in [a.text for a in r.find_elements(By.CSS_SELECTOR, "a.fact-link")]
    )
    forget = next(
        d.find_element(By.CSS_SELECTOR, "a.forget-link")
        for d in row.find_elements(By.CSS_SELECTOR, "div.because")
        if d.find_element(By.CSS_SELECTOR, "a.fact-link").text == fact_id
    )
    go(driver, forget)
    assert fact_text in driver.find_element(By.TAG_NAME, "blockquote").text
    go(driver, driver.find_element(By.ID, "confirm-forget"))
    assert "forgotten" in driver.find_element(By.ID, "notice").text
    driver.get(base + "/ui/p/alice/changes")
    page = driver.find_element(By.ID, "changes").text
    assert fact_id not in page and fact_text not in page
