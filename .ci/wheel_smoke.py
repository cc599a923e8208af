"""Build the wheel and sdist, install the wheel into a fresh virtualenv from the
package registry alone, and use it the way a new user would, offline.

    python3 .ci/wheel_smoke.py [--keep DIR]

Checks, in order:
1. ``python -m build`` makes an sdist and, from it, a wheel (so the sdist is complete),
   of user-as-code and of user-as-code-minilm (the model's files, its one
   dependency that is not on the package index yet);
2. ``pip install <wheel>`` into a new venv brings no torch, no CUDA and no
   sentence-transformers, and the venv stays under the size bound;
3. with the core alone, in a new empty model cache: init, ingest, compile, search,
   repl; ``uac serve http`` says in one line which extra it needs;
4. with the ``server`` extra added: ``uac serve http`` answers a search for one request.

Prints the venv's size and the median wall time of ``uac search`` (5 runs after a
first one), which docs/performance.md quotes.  Exit status 0 only if every check holds.
Uses the standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAX_CORE_MB = 500
FORBIDDEN = ("torch", "sentence-transformers", "transformers", "nvidia-cublas-cu12", "triton")


def step(text: str) -> None:
    print(f"--- {text}", flush=True)


def run(
    argv: list[str], *, env: dict[str, str] | None = None, check: bool = True, **kwargs
) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, **kwargs)
    if check and done.returncode != 0:
        sys.stderr.write(f"FAILED: {' '.join(argv)}\n{done.stdout}\n{done.stderr}\n")
        raise SystemExit(1)
    return done


def du_mb(path: Path) -> float:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            full = os.path.join(dirpath, name)
            if not os.path.islink(full):
                total += os.path.getsize(full)
    return total / 1e6


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it (default: a temporary one)")
    parser.add_argument("--python", default=sys.executable, help="the Python that builds and hosts the venv")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="uac-wheel-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        return smoke(work, args.python)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


def smoke(work: Path, python: str) -> int:
    dist = work / "dist"
    step("build the sdist and, from it, the wheel")
    builder = work / "build-venv"
    run([python, "-m", "venv", str(builder)])
    run([str(builder / "bin" / "pip"), "install", "--quiet", "build"])
    shutil.rmtree(dist, ignore_errors=True)
    for source in (REPO, REPO / "packaging" / "minilm"):
        run([str(builder / "bin" / "python"), "-m", "build", "--outdir", str(dist), str(source)], timeout=900)
    built = {}
    for name in ("user_as_code", "user_as_code_minilm"):
        wheels = sorted(dist.glob(f"{name}-[0-9]*.whl"))
        sdists = sorted(dist.glob(f"{name}-[0-9]*.tar.gz"))
        if len(wheels) != 1 or len(sdists) != 1:
            print(
                f"expected one wheel and one sdist of {name} in {dist}, found {sorted(p.name for p in dist.iterdir())}"
            )
            return 1
        built[name] = wheels[0]
        print(
            f"built {wheels[0].name} ({wheels[0].stat().st_size / 1e6:.1f} MB) and {sdists[0].name} ({sdists[0].stat().st_size / 1e6:.1f} MB)"
        )
    wheel, model_wheel = built["user_as_code"], built["user_as_code_minilm"]

    step("install the wheel (and the model's, which is not on the index yet) into a fresh venv, from the registry")
    venv = work / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    run([python, "-m", "venv", str(venv)])
    pip = str(venv / "bin" / "pip")
    run([pip, "install", "--quiet", "--upgrade", "pip"])
    started = time.monotonic()
    run([pip, "install", "--quiet", str(wheel), str(model_wheel)], timeout=1800)
    installed_s = time.monotonic() - started
    listed = {line.split("==")[0].lower() for line in run([pip, "freeze"]).stdout.splitlines()}
    present = [name for name in FORBIDDEN if name in listed]
    size = du_mb(venv)
    print(f"core venv: {size:.0f} MB, {len(listed)} packages, installed in {installed_s:.0f} s")
    if present:
        print(f"the core install brought {', '.join(present)}")
        return 1
    if size > MAX_CORE_MB:
        print(f"the core install is {size:.0f} MB, over {MAX_CORE_MB} MB")
        return 1

    uac = str(venv / "bin" / "uac")
    home = work / "projects"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir()
    env = {
        "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
        "HOME": str(work / "home"),
        "UAC_HOME": str(home),
        "UAC_CACHE_DIR": str(work / "cache"),  # empty: the ONNX graph is written on first use
        "HF_HUB_OFFLINE": "1",
        "UAC_BLOCK_NETWORK": "1",
        "LANG": "C.UTF-8",
    }
    shutil.rmtree(work / "cache", ignore_errors=True)
    example = REPO / "examples" / "demo" / "conversation.json"

    step("core: init, ingest, compile, search, repl (offline, new model cache)")
    run([uac, "init", "maya", "--user-name", "Maya", "--timezone", "Europe/Lisbon"], env=env, cwd=work)
    ingested = json.loads(run([uac, "ingest", "maya", str(example), "--json"], env=env, cwd=work).stdout)
    print(f"ingest: {ingested.get('facts_appended')} facts")
    compiled = json.loads(run([uac, "compile", "maya", "--json"], env=env, cwd=work).stdout)
    names = sorted(d.get("domain", "?") for d in compiled.get("domains", []) if isinstance(d, dict))
    print(f"compile: mode {compiled.get('mode')}, domains {', '.join(names)}")
    if not names:
        print("compile made no domain")
        return 1
    found = json.loads(
        run([uac, "search", "maya", "Who went to Kyoto?", "--k", "5", "--json"], env=env, cwd=work).stdout
    )
    if not found["results"] or not any("Kyoto" in hit["text"] for hit in found["results"]):
        print(f"search found nothing about Kyoto: {found}")
        return 1
    ran = json.loads(
        run([uac, "repl", "maya", "-c", "result = sorted(repl_names())[:3]", "--json"], env=env, cwd=work).stdout
    )
    if not ran["ok"]:
        print(f"repl failed: {ran}")
        return 1
    times = []
    for _ in range(6):
        started = time.monotonic()
        run([uac, "search", "maya", "Who went to Kyoto?", "--json"], env=env, cwd=work)
        times.append(time.monotonic() - started)
    print(f"uac search in the core venv: median {statistics.median(times[1:]):.2f} s of 5 (first {times[0]:.2f} s)")

    refused = run([uac, "serve", "http", "--root", str(home)], env=env, cwd=work, check=False, timeout=60)
    lines = refused.stderr.strip().splitlines()
    if refused.returncode != 2 or len(lines) != 1 or "user-as-code[server]" not in lines[0]:
        print(
            f"serve http without the server extra should be one line naming it: {refused.returncode} {refused.stderr!r}"
        )
        return 1

    step("with the server extra: serve http for one request")
    run([pip, "install", "--quiet", f"{wheel}[server]", str(model_wheel)], timeout=1800)
    token = run([uac, "token", "create", "maya", "--quiet"], env=env, cwd=work).stdout.strip()
    if not token or "\n" in token:
        print(f"token create --quiet printed {token!r}")
        return 1
    port = free_port()
    server = subprocess.Popen(
        [uac, "serve", "http", "--root", str(home), "--port", str(port)],
        env=env,
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        last = ""
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=5) as reply:
                    if reply.status == 200:
                        break
            except urllib.error.HTTPError as exc:  # the server answers, but not healthy
                last = f"{exc.code} {exc.read().decode('utf-8', 'replace')}"
            except OSError as exc:
                last = str(exc)
            if server.poll() is not None or time.monotonic() > deadline:
                server.terminate()
                output = server.communicate(timeout=30)[0] if server.stdout else ""
                print(f"the server did not become healthy ({last}):\n{output}")
                return 1
            time.sleep(0.2)
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/projects/maya/search",
            data=json.dumps({"query": "Who went to Kyoto?", "k": 3}).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as reply:
            body = json.loads(reply.read())
        if not body.get("results"):
            print(f"the served search found nothing: {body}")
            return 1
        print(f"serve http: search answered with {len(body['results'])} results")
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    print("wheel smoke test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
