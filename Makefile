# uac -- both entry points install into .venv/ first.
#   make demo   installs, builds a sample user project offline and shows what it can do
#   make test   installs and runs the whole test suite

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

# The development install is the package with every extra. torch (the `reference`
# extra: sentence-transformers, which the tests check the ONNX embeddings against)
# is installed first, as the CPU build: on Linux the default torch wheel brings
# gigabytes of CUDA libraries. Order of preference: a torch wheel already on this
# machine (pip's find-links), PyTorch's CPU-only wheel index on Linux, the default
# wheel elsewhere (the macOS and Windows wheels are CPU builds). `pip install
# user-as-code` alone needs no torch at all.
TORCH_VERSION   := 2.13.0
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: install demo test test-fast lint typecheck bench-cli clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-index --no-deps "torch==$(TORCH_VERSION)" 2>/dev/null \
	  || { [ "$$(uname -s)" = Linux ] && $(PY) -m pip install --quiet "torch==$(TORCH_VERSION)" \
	         --index-url "$(TORCH_CPU_INDEX)" --extra-index-url https://pypi.org/simple; } \
	  || $(PY) -m pip install --quiet "torch==$(TORCH_VERSION)"
	# the model's files, as the distribution user-as-code-minilm (packaging/minilm)
	$(PY) -m pip install --quiet ./packaging/minilm
	$(PY) -m pip install --quiet -e ".[dev,server,mcp,chroma,plots,bench,reference,openai-agents,pydantic-ai,langgraph]"
	# the ONNX graph of the bundled model, written once into the user cache (~/.cache/uac)
	HF_HUB_OFFLINE=1 $(PY) -m uac.index.onnx_export
	touch $(STAMP)

install: $(STAMP)

DEMO_ENV := HF_HUB_OFFLINE=1 HF_HUB_DISABLE_PROGRESS_BARS=1 TRANSFORMERS_VERBOSITY=error

demo: $(STAMP)
	$(DEMO_ENV) $(PY) -m uac.demo
	@echo ""
	@echo "=== 9. the analytical benchmark offline (N = 20 and 50): typed state vs. top-k retrieval ==="
	$(DEMO_ENV) $(PY) -m analytical_bench run --tiers 20,50 --quiet --out build/analytical-demo
	@sed -n '1,60p' build/analytical-demo/report.md
	@echo ""
	@echo "=== 10. the conversational benchmark offline (generated chats of 10 and 20 sessions) ==="
	$(DEMO_ENV) $(PY) -m analytical_bench conv --sizes 10,20 --offline --no-hand-written --quiet --out build/conv-demo
	@sed -n '/^## Offline view/,/^## Tokens/p' build/conv-demo/report.md
	@$(DEMO_ENV) $(PY) -m uac.demo --inspector-hint

# The suite runs on every core (pytest-xdist, at most 8 workers), each worker taking whole
# test files, so the fixtures a file builds are built once.  TEST_WORKERS=0 runs it in one
# process; TEST_WORKERS=N runs N workers.
TEST_WORKERS ?= auto
PYTEST := HF_HUB_OFFLINE=1 $(PY) -m pytest -n $(TEST_WORKERS) --maxprocesses 8 --dist loadfile

test: $(STAMP)
	$(PYTEST)

# the lint rules of pyproject.toml ([tool.ruff]), the formatter's check (`ruff format .` fixes it),
# then the type checker: zero findings, CI fails on one
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# mypy over uac/ and sandbox/ as pyproject.toml's [tool.mypy] sets it (the public API strict);
# a first run takes about 90 s of CPU; its cache (.mypy_cache/) makes the next take about 3 s
typecheck: $(STAMP)
	$(VENV)/bin/mypy

test-fast: $(STAMP)
	$(PYTEST) -m "not slow"

bench-cli: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) benchmarks/bench_cli.py --out build/bench-cli-results

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache build *.egg-info user_projects/demo
