# Spit handheld — every command a newcomer or CI needs. `make test` sets itself up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
MICROPYTHON := $(VENV)/bin/micropython
STAMP := $(VENV)/.installed-$(shell cksum < requirements-dev.txt | cut -d' ' -f1)
HEADLESS := SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy

.PHONY: test bench setup clean golden

setup: $(STAMP)

$(STAMP): requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	rm -f $(VENV)/.installed-*
	touch $@

test: $(STAMP)
	$(HEADLESS) $(PY) -m pytest -q

# Speed and memory tables (never timed tests).
bench: $(STAMP)
	$(PY) tools/bench_rules.py
	$(PY) tools/bench_irq_fairness.py

# Regenerate the golden playthrough transcripts (only when a rule change is intended).
golden: $(STAMP)
	$(PY) -m pytest -q tests/test_golden.py --regen-golden

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
