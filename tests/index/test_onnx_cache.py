"""Where the ONNX export lives, how it is keyed, and concurrent first use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from uac.index import onnx_export


def _fake_model(directory: Path, weights: bytes = b"weights-1") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text('{"hidden_size": 384}', "utf-8")
    (directory / "model.safetensors").write_bytes(weights)
    return directory


def test_cache_root_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("UAC_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert onnx_export.cache_root() == tmp_path / "xdg" / "uac"
    monkeypatch.setenv("UAC_CACHE_DIR", str(tmp_path / "mine"))
    assert onnx_export.cache_root() == tmp_path / "mine"
    monkeypatch.delenv("UAC_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert onnx_export.cache_root() == tmp_path / "home" / ".cache" / "uac"


def test_checksum_is_of_the_content_and_remembered_per_file_identity(tmp_path):
    root = tmp_path / "cache"
    source = _fake_model(tmp_path / "model")
    first = onnx_export.model_checksum(source, root)
    assert len(first) == 64
    stamps = list((root / "models" / "stamps").glob("*.json"))
    assert len(stamps) == 1 and json.loads(stamps[0].read_text())["checksum"] == first
    # the stamp is what is read while the files keep their identity (no re-hashing)
    stamps[0].write_text(json.dumps({"checksum": "remembered"}))
    assert onnx_export.model_checksum(source, root) == "remembered"
    # other weights: another identity, another checksum, another export directory
    _fake_model(source, b"weights-2, longer")
    second = onnx_export.model_checksum(source, root)
    assert second not in (first, "remembered")
    assert onnx_export.export_dir(first, root) != onnx_export.export_dir(second, root)
    assert onnx_export.export_dir(second, root).name.endswith(f"-onnx{onnx_export.EXPORT_FORMAT}")


def test_same_content_elsewhere_has_the_same_checksum(tmp_path):
    root = tmp_path / "cache"
    a = onnx_export.model_checksum(_fake_model(tmp_path / "a"), root)
    b = onnx_export.model_checksum(_fake_model(tmp_path / "b"), root)
    assert a == b


def test_a_missing_model_file_is_a_clear_error(tmp_path):
    from uac.errors import StoreError

    source = _fake_model(tmp_path / "model")
    (source / "model.safetensors").unlink()
    with pytest.raises(StoreError, match="model.safetensors"):
        onnx_export.model_checksum(source, tmp_path / "cache")


def test_an_unwritable_cache_is_a_clear_error(tmp_path, monkeypatch):
    from uac.errors import StoreError

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache should be")
    monkeypatch.setattr(onnx_export, "model_checksum", lambda source=None, root=None: "0" * 64)
    with pytest.raises(StoreError, match="UAC_CACHE_DIR"):
        onnx_export.ensure_onnx_model(blocker / "cache")


_FIRST_USE = """
import sys
from uac.index.onnx_export import ensure_onnx_model
from uac.index.onnx_embedder import OnnxEmbedder
path = ensure_onnx_model()
vector = OnnxEmbedder(model_path=path).encode(["Caroline went to a support group."])[0]
print(path)
print(",".join(f"{x:.6f}" for x in vector[:8]))
"""


@pytest.mark.slow
@pytest.mark.embeddings
@pytest.mark.timeout(1200)
def test_concurrent_first_use_exports_once_and_atomically(tmp_path, onnx_embedder):
    env = dict(os.environ, UAC_CACHE_DIR=str(tmp_path / "cache"), HF_HUB_OFFLINE="1")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _FIRST_USE], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=600) for p in procs]
    for proc, (_out, err) in zip(procs, outputs):
        assert proc.returncode == 0, err
    paths = {out.splitlines()[0] for out, _ in outputs}
    assert len(paths) == 1
    model = Path(paths.pop())
    assert model.is_file() and model.parent.parent.parent == tmp_path / "cache"
    # one finished export, no temporary leftovers, and its provenance written beside it
    assert sorted(p.name for p in model.parent.iterdir()) == ["export.json", "model.onnx", "model.weights"]
    assert sorted(p.name for p in model.parent.parent.iterdir() if p.name.startswith(".")) == []
    assert json.loads((model.parent / "export.json").read_text())["export_format"] == onnx_export.EXPORT_FORMAT
    # every process computed the same vector as the export in the default cache
    want = onnx_embedder.encode(["Caroline went to a support group."])[0][:8]
    for out, _ in outputs:
        got = np.array([float(x) for x in out.splitlines()[1].split(",")])
        np.testing.assert_allclose(got, want, atol=1e-5)
