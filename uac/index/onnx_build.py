"""The ONNX graph of the bundled model, written from its weights without torch.

all-MiniLM-L6-v2 is a BERT encoder (6 layers, hidden size 384, 12 heads,
GELU feed-forward of 1536, post-layer-norm).  This module reads its
``model.safetensors`` with numpy and writes the same computation as an ONNX
graph with ``onnx.helper``: word, position and token-type embeddings, layer
norm, then per layer self-attention with the padding mask, a residual layer
norm, the feed-forward block and a second residual layer norm.  The output is
the last hidden state per token; pooling and normalisation happen in
:class:`~uac.index.embeddings.Embedder`, as for every backend.

The graph is built from ``config.json`` (sizes, epsilon, activation) and the
tensor names of Hugging Face's ``BertModel``; anything else is refused with a
message instead of building a wrong model.  :mod:`uac.index.onnx_export`
checks the result against reference vectors of sentence-transformers before
it is used.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StoreError

if TYPE_CHECKING:
    import numpy

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "token_embeddings"
OPSET = 17  # LayerNormalization is an operator from opset 17 on

_DTYPES = {"F32": "float32", "F16": "float16", "I64": "int64"}
#: the largest header a safetensors file may declare (the format's own bound is 100 MB)
_MAX_HEADER = 100 * 1024 * 1024


def read_safetensors(path: Path) -> "dict[str, numpy.ndarray]":
    """Every tensor of a safetensors file, as read-only numpy arrays (memory-mapped).

    The format is an 8-byte little-endian header length, a JSON header naming
    each tensor's dtype, shape and byte range, then the raw little-endian data.
    """
    import numpy as np

    try:
        with open(path, "rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            if not 2 <= length <= _MAX_HEADER:
                raise ValueError(f"header length {length} is out of range")
            header = json.loads(handle.read(length))
    except (OSError, ValueError, struct.error) as exc:
        raise StoreError(
            f"cannot read the weights of the embedding model ({path}): {exc}.",
            hint="Reinstall the package user-as-code-minilm.",
        ) from exc
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + length)
    tensors: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(spec.get("dtype"))
        if dtype is None:
            raise StoreError(
                f"the embedding model's tensor {name!r} has dtype {spec.get('dtype')!r}, which uac cannot read.",
                hint="Reinstall the package user-as-code-minilm.",
            )
        start, end = spec["data_offsets"]
        array = np.frombuffer(data[start:end], dtype=np.dtype(dtype).newbyteorder("<"))
        tensors[name] = array.reshape(spec["shape"])
    return tensors


class _Graph:
    """A small builder over ``onnx.helper``: named nodes and float initializers."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0

    def const(self, name: str, array: "numpy.ndarray") -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(array, name=name))
        return name

    def op(self, kind: str, inputs: list[str], *, name: str | None = None, **attrs: Any) -> str:
        from onnx import helper

        self._count += 1
        out = name or f"{kind.lower()}_{self._count}"
        self.nodes.append(helper.make_node(kind, inputs, [out], name=f"n{self._count}_{kind}", **attrs))
        return out


def _check_config(config: dict[str, Any]) -> tuple[int, int, int, int, float]:
    if config.get("model_type") != "bert":
        raise StoreError(
            f"the embedding model is a {config.get('model_type')!r} model; uac builds graphs for BERT only.",
            hint="Reinstall the package user-as-code-minilm, or set UAC_EMBEDDINGS=torch.",
        )
    if config.get("hidden_act") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
        raise StoreError(
            "the embedding model uses an activation or position embedding uac does not build "
            f"(hidden_act={config.get('hidden_act')!r}, position_embedding_type={config.get('position_embedding_type')!r}).",
            hint="Reinstall the package user-as-code-minilm, or set UAC_EMBEDDINGS=torch.",
        )
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    if hidden % heads:
        raise StoreError(
            f"hidden size {hidden} is not a multiple of {heads} heads.",
            hint="Reinstall the package user-as-code-minilm.",
        )
    return (
        hidden,
        heads,
        int(config["num_hidden_layers"]),
        int(config["intermediate_size"]),
        float(config.get("layer_norm_eps", 1e-12)),
    )


def _read_config(source: Path) -> tuple[int, int, int, int, float]:
    try:
        config = json.loads((source / "config.json").read_text("utf-8"))
        return _check_config(config)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StoreError(
            f"cannot read the configuration of the embedding model ({source / 'config.json'}): {exc}.",
            hint="Reinstall the package user-as-code-minilm.",
        ) from exc


class _BertGraph:
    """Writes the graph of one BERT encoder, node by node, from its weights."""

    def __init__(self, weights: dict[str, Any], hidden: int, heads: int, eps: float) -> None:
        import numpy as np

        self.np = np
        self.weights = weights
        self.prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        self.hidden, self.heads, self.eps = hidden, heads, eps
        self.g = _Graph()
        self._constants()

    def _constants(self) -> None:
        np, g, head = self.np, self.g, self.hidden // self.heads
        g.const("axes_last", np.array([-1], dtype=np.int64))
        g.const("axes_mask", np.array([1, 2], dtype=np.int64))
        g.const("zero", np.array(0, dtype=np.int64))
        g.const("one", np.array(1, dtype=np.int64))
        g.const("one_f", np.array(1.0, dtype=np.float32))
        g.const("half_f", np.array(0.5, dtype=np.float32))
        g.const("sqrt2_f", np.array(math.sqrt(2.0), dtype=np.float32))
        g.const("mask_min", np.array(np.finfo(np.float32).min, dtype=np.float32))
        g.const("split_shape", np.array([0, 0, self.heads, head], dtype=np.int64))
        g.const("merge_shape", np.array([0, 0, self.hidden], dtype=np.int64))
        g.const("scale", np.array(1.0 / math.sqrt(head), dtype=np.float32))
        g.const("index_1", np.array([1], dtype=np.int64))

    def weight(self, name: str) -> "numpy.ndarray":
        try:
            return self.np.ascontiguousarray(self.weights[self.prefix + name], dtype=self.np.float32)
        except KeyError:
            raise StoreError(
                f"the embedding model has no tensor {self.prefix + name!r}.",
                hint="Reinstall the package user-as-code-minilm.",
            ) from None

    def linear(self, x: str, name: str) -> str:
        g = self.g
        w = g.const(f"{name}.weight_t", self.np.ascontiguousarray(self.weight(f"{name}.weight").T))
        b = g.const(f"{name}.bias", self.weight(f"{name}.bias"))
        return g.op("Add", [g.op("MatMul", [x, w]), b])

    def layer_norm(self, x: str, name: str) -> str:
        g = self.g
        scale = g.const(f"{name}.weight", self.weight(f"{name}.weight"))
        bias = g.const(f"{name}.bias", self.weight(f"{name}.bias"))
        return g.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=self.eps)

    def embeddings(self) -> str:
        """Word + position + token type, then layer norm."""
        g, weight = self.g, self.weight
        words = g.op(
            "Gather", [g.const("word_embeddings", weight("embeddings.word_embeddings.weight")), "input_ids"], axis=0
        )
        length = g.op("Gather", [g.op("Shape", ["input_ids"]), "index_1"], axis=0)
        positions = g.op("Range", ["zero", g.op("Squeeze", [length]), "one"])
        placed = g.op(
            "Gather",
            [g.const("position_embeddings", weight("embeddings.position_embeddings.weight")), positions],
            axis=0,
        )
        typed = g.op(
            "Gather",
            [g.const("token_type_embeddings", weight("embeddings.token_type_embeddings.weight")), "token_type_ids"],
            axis=0,
        )
        return self.layer_norm(g.op("Add", [g.op("Add", [words, placed]), typed]), "embeddings.LayerNorm")

    def mask_bias(self) -> str:
        """The padding mask as an additive bias of shape [batch, 1, 1, tokens]."""
        from onnx import TensorProto

        g = self.g
        mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
        return g.op("Mul", [g.op("Sub", ["one_f", g.op("Unsqueeze", [mask, "axes_mask"])]), "mask_min"])

    def encoder_layer(self, number: int, state: str, bias: str) -> str:
        g, linear, layer_norm = self.g, self.linear, self.layer_norm
        base = f"encoder.layer.{number}"

        def split(x: str) -> str:  # [batch, tokens, hidden] -> [batch, heads, tokens, head]
            return g.op("Transpose", [g.op("Reshape", [x, "split_shape"])], perm=[0, 2, 1, 3])

        query = split(linear(state, f"{base}.attention.self.query"))
        key_t = g.op(
            "Transpose",
            [g.op("Reshape", [linear(state, f"{base}.attention.self.key"), "split_shape"])],
            perm=[0, 2, 3, 1],
        )
        value = split(linear(state, f"{base}.attention.self.value"))
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [query, key_t]), "scale"]), bias])
        context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), value])
        merged = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), "merge_shape"])
        attended = layer_norm(
            g.op("Add", [linear(merged, f"{base}.attention.output.dense"), state]), f"{base}.attention.output.LayerNorm"
        )
        inner = linear(attended, f"{base}.intermediate.dense")
        # exact GELU, as Hugging Face's "gelu": 0.5 * x * (1 + erf(x / sqrt(2)))
        gelu = g.op(
            "Mul",
            [g.op("Mul", [inner, "half_f"]), g.op("Add", ["one_f", g.op("Erf", [g.op("Div", [inner, "sqrt2_f"])])])],
        )
        return layer_norm(g.op("Add", [linear(gelu, f"{base}.output.dense"), attended]), f"{base}.output.LayerNorm")

    def model(self, state: str) -> Any:
        """The checked ``ModelProto`` whose output is ``state``."""
        from onnx import TensorProto, checker, helper

        g = self.g
        g.nodes.append(helper.make_node("Identity", [state], [OUTPUT], name="output"))
        graph = helper.make_graph(
            g.nodes,
            "token_embeddings",
            [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"]) for name in INPUTS],
            [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", "tokens", self.hidden])],
            initializer=g.initializers,
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="uac")
        model.ir_version = 8  # readable by every onnxruntime release uac supports
        checker.check_model(model, full_check=False)
        return model


def build_model(source: Path) -> Any:
    """The ONNX ``ModelProto`` of the BERT model in ``source`` (``config.json``, ``model.safetensors``)."""
    import onnx  # noqa: F401  (without onnx, fail before reading the model)

    hidden, heads, layers, _inner, eps = _read_config(source)
    bert = _BertGraph(read_safetensors(source / "model.safetensors"), hidden, heads, eps)
    state = bert.embeddings()
    bias = bert.mask_bias()
    for number in range(layers):
        state = bert.encoder_layer(number, state, bias)
    return bert.model(state)
