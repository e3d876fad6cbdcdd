# gpucache: the two set-up commands of the README, and a few helpers.
#
#   make demo   set up, then run the main job: tian15's comparison on its 13 built-in workloads
#               at the paper's input sizes (DEMO_SCALE=0.25 make demo for a quicker look)
#   make test   set up, then run the tests (slow ones only with GPUCACHE_SLOW=1)

VENV := .venv
BIN := $(VENV)/bin
DEMO_SCALE ?= 1
DEMO_CONFIG ?= tian15
PYTEST_ARGS ?=

# Slow tests run only when asked for.
ifeq ($(GPUCACHE_SLOW),1)
MARKERS :=
else
MARKERS := -m "not slow"
endif

.PHONY: setup demo test lint clean

setup:
	@scripts/setup.sh

demo: setup
	$(BIN)/gpucache compare --suite tian15 --scale $(DEMO_SCALE) --config $(DEMO_CONFIG) \
		--plot results/figures --json results/compare_tian15.json --progress

# pytest exits with 5 when it collected no tests: that must fail CI loudly, not as an
# unexplained status.
test: setup
	@$(BIN)/python -m pytest -n 2 $(MARKERS) $(PYTEST_ARGS); status=$$?; \
	if [ $$status -eq 5 ]; then echo "make test: pytest collected no tests" >&2; exit 1; fi; \
	exit $$status

lint: setup
	@$(BIN)/ruff check golden rtl tb synth cli tests benchmarks

clean:
	rm -rf results .pytest_cache .ruff_cache build
