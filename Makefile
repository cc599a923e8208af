# uac -- both entry points install into .venv/ first.
#   make demo   installs, builds a sample user project offline and shows what it can do
#   make test   installs and runs the whole test suite

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-fast bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first and pinned: the CPU build, never a multi-GB CUDA download
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[dev,server,mcp,plots]"
	touch $(STAMP)

install: $(STAMP)

DEMO_ENV := HF_HUB_OFFLINE=1 HF_HUB_DISABLE_PROGRESS_BARS=1 TRANSFORMERS_VERBOSITY=error

demo: $(STAMP)
	$(DEMO_ENV) $(PY) -m uac.demo
	@echo ""
	@echo "=== 9. the analytical benchmark offline (N = 20 and 50): typed state vs. top-k retrieval ==="
	$(DEMO_ENV) $(PY) -m analytical_bench run --tiers 20,50 --quiet --out build/analytical-demo
	@sed -n '1,60p' build/analytical-demo/report.md

test: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m pytest

test-fast: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m pytest -m "not slow"

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info user_projects/demo
