"""``preload()`` loads the embedder in a thread while the caller goes on (ingest reads
the log and packed tables meanwhile).  Both import numpy, and a first import of numpy
in two threads at once can fail ("partially initialized module"): so the caller has
numpy imported before the loader's thread starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.embeddings

_PRELOAD = """
import json, sys, threading
from uac.index import embeddings

seen = []
real_start = threading.Thread.start

def start(self):
    seen.append((self.name, "numpy" in sys.modules))
    real_start(self)

threading.Thread.start = start
assert "numpy" not in sys.modules, "this check needs a process that has not imported numpy yet"
thread = embeddings.preload()
thread.join()
print(json.dumps({"started": seen, "loaded": sorted(embeddings._instances)}))
"""


def test_numpy_is_imported_before_the_loader_thread_starts():
    env = {k: v for k, v in os.environ.items() if not k.startswith("UAC_")}
    env.update(HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", _PRELOAD], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["started"] == [["uac-embedder-load", True]]
    assert report["loaded"] == ["onnx"]  # and the thread did load the model
