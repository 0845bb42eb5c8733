"""``python -m desktop_emulator``: the command line.

Every mistake on the command line, and every replay that cannot be read, ends with
one line on stderr and exit status 2 (no traceback); so do a missing display, an
output file or folder that cannot be written, and a terminal too small for --terminal.
"""

import argparse
import errno
import os
import random
import sys
import tempfile

from desktop_emulator import outputs, session
from desktop_emulator import loops, replays, window
from desktop_emulator.session import LEVELS
from shared_rules.game import MAX_SEED

EXIT_USAGE = 2
PROG = "python -m desktop_emulator"

DESCRIPTION = """\
Spit, the real-time two-player card game: the handheld's own firmware in a window
(or headless, or in a terminal). With no options, opens the window at the title menu.
Keys: player 0 (bottom) Z = A, X = B; player 1 (top) N = A, M = B (see --keys).
Esc pauses, F9 turns player 1's half upright (two players side by side) or back,
F11 toggles fullscreen, F12 saves a screenshot.
"""

EPILOG = """\
examples:
  %(prog)s                                   window, title menu
  %(prog)s --p1 hard                         you (player 0) against the hard CPU
  %(prog)s --headless --p0 hard --p1 easy --seed 3 --until over --print-state
  %(prog)s --terminal --p0 normal --p1 hard  watch the CPUs play in this terminal
  %(prog)s --p1 normal --record game.txt     then:  %(prog)s --replay game.txt
  %(prog)s --link listen:7700   and, in another terminal:
  %(prog)s --link connect:127.0.0.1:7700     two handhelds linked (docs/LINK.md)
  %(prog)s --headless --engine pico --link app  the Pico's firmware linked to the app
  %(prog)s --headless --link loopback          the cable loopback self-test
"""


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)

    def exit(self, status=0, message=None):
        if status:
            raise UsageError((message or "error").strip())
        if message:
            sys.stdout.write(message)
        raise SystemExit(0)


def positive_int(text):
    try:
        n = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number" % text) from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1, got %d" % n)
    return n


def seed_int(text):
    try:
        n = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number" % text) from None
    if not 0 <= n <= MAX_SEED:
        raise argparse.ArgumentTypeError("must be 0 .. 2**30-1, got %d" % n)
    return n


def scale_int(text):
    n = positive_int(text)
    if n > 20:
        raise argparse.ArgumentTypeError("at most 20, got %d" % n)
    return n


def fps_int(text):
    n = positive_int(text)
    if n > 50:
        raise argparse.ArgumentTypeError("at most 50, got %d" % n)
    return n


def speed_float(text):
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number" % text) from None
    if not x >= 0 or x == float("inf"):
        raise argparse.ArgumentTypeError("must be 0 (unpaced) or more, got %s" % text)
    return x


def build_parser():
    p = Parser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    who = p.add_argument_group("the game")
    who.add_argument("--p0", choices=LEVELS, metavar="{human,easy,normal,hard}",
                     help="who plays player 0, at the bottom (default: human in the "
                          "window, normal headless)")
    who.add_argument("--p1", choices=LEVELS, metavar="{human,easy,normal,hard}",
                     help="who plays player 1, at the top (default: normal)")
    who.add_argument("--seed", type=seed_int, metavar="N",
                     help="the deal (default: random in a window or terminal, 0 "
                          "headless); with --p0/--p1/--seed/--rules the window skips the "
                          "menu and deals at once")
    who.add_argument("--rules", choices=("standard", "points"),
                     help="standard game, or the points variant (default: standard)")
    who.add_argument("--manual-flip", action="store_true",
                     help="turning a stockpile's next card is a separate press (R14)")
    run = p.add_argument_group("how it runs")
    run.add_argument("--link", metavar="listen:PORT|connect:HOST:PORT|loopback|app[:FAULTS]",
                     help="link play (R43): this process is one handheld of two, linked "
                          "over a local socket that carries the cable's bytes; start "
                          "the other with the other form. loopback: the cable's "
                          "self-test (TX wired to RX). With --engine pico --headless, "
                          "app: the emulated Pico linked to the app engine here, FAULTS "
                          "a comma list of loopback, tx-to-tx, floating, baud=N, flip=P, "
                          "stop=MS, pico-hosts (docs/LINK.md)")
    run.add_argument("--engine", choices=("app", "pico"), default="app",
                     help="app: the firmware's app in this Python (fast, the default); "
                          "pico: the real firmware in MicroPython on an emulated Raspberry "
                          "Pi Pico (needs Node.js; see docs/EMULATOR.md)")
    run.add_argument("--firmware", metavar="PATH",
                     help="--engine pico: the MicroPython UF2 for the Pico (or a folder with "
                          "it and the RP2040 boot ROM); default: ../shared/rp2/")
    mode = run.add_mutually_exclusive_group()
    mode.add_argument("--headless", action="store_true",
                      help="no window, no sound: as fast as it can on a simulated clock")
    mode.add_argument("--terminal", action="store_true",
                      help="no window: draw the screen in this terminal with half blocks, "
                           "at real speed (make demo)")
    run.add_argument("--until", choices=("over", "round"),
                     help="stop at the game-over screen / at the end of the first round "
                          "(headless default: over)")
    run.add_argument("--frames", type=positive_int, metavar="N",
                     help="stop after N frames")
    run.add_argument("--speed", type=speed_float, default=None, metavar="X",
                     help="--terminal only: X times real time (0: as fast as possible; "
                          "--headless always runs as fast as it can, the window at real "
                          "time)")
    run.add_argument("--start-near-wrap", action="store_true",
                     help="start the clock 2 s before its 2**30 us wrap")
    run.add_argument("--replace-save", action="store_true",
                     help="a game started by --p0/--p1/--seed replaces the saved game "
                          "(without it, a saved game is kept and CONTINUE offers it)")
    rec = p.add_argument_group("replays and output")
    rec.add_argument("--record", metavar="FILE",
                     help="write the game's replay (seed, rules, fumble time, stamped "
                          "button events); every further game of the session (a rematch) "
                          "goes to FILE-2, FILE-3 ... (game-2.txt for game.txt)")
    rec.add_argument("--replay", metavar="FILE",
                     help="play a replay back (headless or in the window)")
    rec.add_argument("--screenshot", metavar="FILE",
                     help="save the last frame as a PNG (scaled by --scale)")
    rec.add_argument("--dump-frames", metavar="DIR",
                     help="save every frame shown as DIR/000001.png ... with DIR/frames.txt "
                          "(times in ms), e.g. to make a GIF with another tool")
    rec.add_argument("--gif", metavar="FILE",
                     help="record the frames shown as an animated GIF, written at exit "
                          "(scaled by --scale; default 3 headless and in the terminal)")
    rec.add_argument("--gif-fps", type=fps_int, default=10, metavar="N",
                     help="--gif: N frames a second of the emulator's clock, 1-50 "
                          "(default 10)")
    rec.add_argument("--print-state", action="store_true",
                     help="last line: state <sha1 of the game snapshot> frame <sha1 of "
                          "the framebuffer>")
    win = p.add_argument_group("the window")
    win.add_argument("--scale", type=scale_int, default=None, metavar="N",
                     help="each screen pixel is N x N (default 6)")
    win.add_argument("--skin", action=argparse.BooleanOptionalAction, default=None,
                     help="draw the handheld and its pads around the screen "
                          "(default: on in the window)")
    win.add_argument("--upright", action="store_true",
                     help="show player 1's half upright too, for two players side by side "
                          "at one screen (F9 toggles it in the window); default: the "
                          "device's view, player 1's half turned to face them across the "
                          "handheld. Screenshots, --gif and --dump-frames show what the "
                          "window shows; the state line is the device's")
    win.add_argument("--keys", nargs="+", metavar="pN=KEY,KEY",
                     help="remap the pads' keys, A then B, e.g. --keys p0=z,x p1=n,m "
                          "(names as pygame spells them: a, space, left shift, comma)")
    return p


def parse_args(argv):
    """-> argparse.Namespace, checked; UsageError (one line) if anything is wrong."""
    args = build_parser().parse_args(argv)
    if args.speed is not None and not args.terminal:
        raise UsageError("--speed is for --terminal (--headless runs as fast as it can, "
                         "the window at real time)")
    if args.speed is None:
        args.speed = 1.0
    if args.replay is not None:
        for flag, value in (("--p0", args.p0), ("--p1", args.p1), ("--seed", args.seed),
                            ("--rules", args.rules),
                            ("--manual-flip", args.manual_flip or None),
                            ("--start-near-wrap", args.start_near_wrap or None),
                            ("--record", args.record)):
            if value is not None:
                raise UsageError("%s cannot be used with --replay (the replay sets it)" % flag)
        if args.terminal:
            raise UsageError("--replay plays headless or in the window, not --terminal")
    if args.headless or args.terminal:
        if args.keys:
            raise UsageError("--keys is for the window (no keyboard %s)" % (
                "headless" if args.headless else "in --terminal"))
        if args.replay is None:
            seats = (args.p0 or "normal", args.p1 or "normal")
            if args.link is not None and args.p1 is not None:
                raise UsageError("--link: player 1 is the other process's; give this "
                                 "one's CPU level with --p0")
            if "human" in seats:
                raise UsageError("%s has no keyboard: give the human seat a CPU level "
                                 "(--p0/--p1 easy|normal|hard), or --replay a game" % (
                                     "--headless" if args.headless else "--terminal"))
    args.link_faults = None
    if args.link is not None:
        from desktop_emulator.link import LinkError, parse_spec
        try:
            kind, _host, _port = parse_spec(args.link)
        except LinkError as e:
            raise UsageError(str(e)) from None
        if kind == "app":
            # The emulated Pico linked to the app engine in this process (docs/LINK.md).
            if args.engine != "pico":
                raise UsageError("--link app is the emulated Pico's peer: use it with "
                                 "--engine pico")
            if not args.headless:
                raise UsageError("--engine pico --link app plays headless (--headless)")
            from desktop_emulator.pico.mixed import parse_faults
            try:
                args.link_faults = parse_faults(_host)
            except ValueError as e:
                raise UsageError(str(e)) from None
        elif args.engine == "pico":
            raise UsageError("--engine pico links to the app engine in this process "
                             "(--link app), not over a socket")
        for flag, value in (("--replay", args.replay), ("--terminal", args.terminal or None),
                            ("--record", args.record if kind == "app" else None),
                            ("--print-state", (args.print_state or None) if kind == "app"
                             else None)):
            if value is not None:
                raise UsageError("%s cannot be used with --link%s" % (
                    flag, " app" if kind == "app" else ""))
    if args.firmware is not None and args.engine != "pico":
        raise UsageError("--firmware is for --engine pico")
    if args.engine == "pico" and args.terminal:
        raise UsageError("--engine pico plays headless or in the window, not --terminal")
    args.keymap = None
    if args.keys:
        from desktop_emulator.keyboard import KeySpecError, parse_keys
        try:
            args.keymap = parse_keys(args.keys)
        except KeySpecError as e:
            raise UsageError(str(e)) from None
    return args


def display_missing(environ=None):
    """Why a window cannot open here, or None. Only on X11/Wayland systems, where the
    absence of DISPLAY and WAYLAND_DISPLAY means there is no screen to open it on."""
    env = os.environ if environ is None else environ
    if not (sys.platform.startswith("linux") or "bsd" in sys.platform):
        return None
    if env.get("SDL_VIDEODRIVER", "").lower() in ("dummy", "offscreen", "kmsdrm", "fbcon"):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return ("no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset). "
            "Watch a CPU game in this terminal with `make demo` (or `%s --terminal "
            "--p0 normal --p1 hard`), or run without a window: `%s --headless --p0 hard "
            "--p1 easy --until over --print-state`" % (PROG, PROG))


#: SDL's video drivers that show nothing.
INVISIBLE_DRIVERS = ("offscreen", "dummy")


def display_fell_back(driver, environ=None):
    """Why the window would show nothing, or None. With DISPLAY pointing at no X server
    (a stale SSH forwarding, WSL without one) SDL may fall back to a video driver that
    draws nowhere, and the game would run forever with no window: unless the user asked
    for that driver (SDL_VIDEODRIVER, the tests do), say so."""
    env = os.environ if environ is None else environ
    driver = (driver or "").lower()
    if driver not in INVISIBLE_DRIVERS:
        return None
    asked = [d.strip() for d in env.get("SDL_VIDEODRIVER", "").lower().split(",")]
    if driver in asked:
        return None
    where = ", ".join("%s=%s" % (k, env[k]) for k in ("DISPLAY", "WAYLAND_DISPLAY")
                      if env.get(k)) or "no DISPLAY"
    return ("no window can open: SDL could not reach a display (%s: a stale SSH "
            "forwarding, or WSL without an X server?) and fell back to its '%s' driver, "
            "which shows nothing. Watch a CPU game in this terminal with `make demo`, or "
            "run `%s --headless --p0 hard --p1 easy --until over --print-state`" % (
                where, driver, PROG))


EXIT_DIVERGED = 3       # a replay that did not reach the states it recorded


def _fail(message, code=EXIT_USAGE):
    print("%s: error: %s" % (PROG.split()[-1], message), file=sys.stderr)
    return code


def _why_not(e):
    return getattr(e, "strerror", None) or str(e) or e.__class__.__name__


def _probe(directory):
    """Can a file be created in this directory? None, or why not (a real attempt:
    permissions, a read-only file system, a full disk...)."""
    try:
        fd, name = tempfile.mkstemp(prefix=".spit-probe-", dir=directory)
    except OSError as e:
        if e.errno == errno.ENOENT and os.path.isdir(directory):
            # The folder is there, yet creating a file in it says "No such file":
            # a virtual file system (/proc, /sys) that takes no new files.
            kind = outputs.file_system_of(directory)
            return "%s takes no new files (%s)" % (
                directory, "a '%s' file system" % kind if kind else "a virtual file system")
        return _why_not(e)
    os.close(fd)
    os.remove(name)
    return None


#: The picture formats --screenshot writes (pygame.image.save picks by suffix, and
#: writes any other suffix as Targa).
SCREENSHOT_SUFFIXES = (".png", ".bmp", ".tga")


def unwritable_file(path, suffixes=None):
    """Why `path` cannot be written as a file, or None."""
    full = os.path.abspath(path)
    d = os.path.dirname(full)
    why = outputs.not_regular(full)
    if why:
        return why
    suffix = os.path.splitext(full)[1].lower()
    if suffixes and suffix not in suffixes:
        return "it writes %s or %s files, not %s" % (
            ", ".join(suffixes[:-1]), suffixes[-1],
            "'%s'" % suffix if suffix else "a name without a suffix")
    if not os.path.isdir(d):
        return "no such directory"
    if os.path.exists(full) and not os.access(full, os.W_OK):
        return "permission denied"
    return _probe(d)


def unwritable_dir(path):
    """Why frames cannot be written into directory `path` (made if missing), or None."""
    full = os.path.abspath(path)
    if os.path.exists(full) and not os.path.isdir(full):
        return "not a directory"
    if os.path.isdir(full):
        why = outputs.not_regular(os.path.join(full, "frames.txt"))
        if why:
            return "frames.txt: %s" % why
        return _probe(full)
    if not os.path.isdir(os.path.dirname(full)):
        return "no such parent directory"
    return _probe(os.path.dirname(full))


def terminal_too_small(out, columns=128, lines=34):
    """For --terminal: why `out`'s terminal cannot show the screen, or None (also
    when `out` is not a terminal: a pipe or a file takes any width)."""
    try:
        size = os.get_terminal_size(out.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    if size.columns >= columns and size.lines >= lines:
        return None
    return ("this terminal is %dx%d; the demo needs at least %d columns and %d lines: "
            "enlarge the window or make the font smaller, or play it in the window "
            "(make play)" % (size.columns, size.lines, columns, lines))


def main(argv=None, clock=None, on_frame=None, stdout=None):
    """The command line. `clock`, `on_frame` are for tests (a SimClock instead of the
    real clock; a callback before each window frame, to post synthetic key events)."""
    out = stdout if stdout is not None else sys.stdout
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as e:
        return _fail(str(e))
    except SystemExit as e:          # --help
        return e.code or 0
    loaded = None
    if args.replay is not None:
        try:
            loaded = replays.load_replay(args.replay)
        except replays.ReplayError as e:
            return _fail(str(e))
    # Every output is checked before the game starts: a game is never played for a
    # file that cannot be written.
    for flag, value, what, suffixes in (
            ("--record", args.record, "cannot record to", None),
            ("--screenshot", args.screenshot, "cannot save a screenshot to",
             SCREENSHOT_SUFFIXES),
            ("--gif", args.gif, "cannot write a GIF to", None)):
        if value is not None:
            why = unwritable_file(value, suffixes)
            if why:
                return _fail("%s %s: %s" % (what, value, why))
    if args.dump_frames is not None:
        why = unwritable_dir(args.dump_frames)
        if why:
            return _fail("--dump-frames %s: %s" % (args.dump_frames, why))
    if args.terminal:
        why = terminal_too_small(out)
        if why:
            return _fail(why)
    windowed = not (args.headless or args.terminal)
    if windowed:
        why = display_missing()
        if why:
            return _fail(why)
    pico = None
    if args.engine == "pico":
        from desktop_emulator.pico.image import find_firmware, ImageError
        from desktop_emulator.pico.device import node_command, DeviceError
        from desktop_emulator.pico.engine import PicoMachine
        try:
            firmware = find_firmware(args.firmware)
            node_command()
        except (ImageError, DeviceError) as e:
            return _fail(str(e))
        pico = PicoMachine(firmware, start_near_wrap=args.start_near_wrap)
    if args.link_faults is not None:
        return _run_mixed(args, pico, out)
    link = None
    if args.link is not None:
        from desktop_emulator.link import LinkError, open_link
        try:
            link = open_link(args.link)
        except LinkError as e:
            return _fail(str(e))
    try:
        return _run(args, loaded, windowed, clock, on_frame, out, pico, link)
    except loops.StopRun as e:
        return _fail(str(e), 1)
    except replays.OutputError as e:
        return _fail(str(e))
    except Exception as e:
        from desktop_emulator.link import LinkError, BadCable
        if isinstance(e, LinkError):
            return _fail(str(e), EXIT_USAGE if isinstance(e, BadCable) else 1)
        if pico is None or not _is_device_error(e):
            raise
        if getattr(e, "traceback", ""):
            print(e.traceback.rstrip(), file=sys.stderr)
        return _fail(str(e), 1)
    finally:
        if pico is not None:
            pico.close()
        if link is not None:
            link.close()


def _run_mixed(args, pico, out):
    """--engine pico --link app: the emulated Pico and the app engine on one cable, in
    the guest's time (desktop_emulator/pico/mixed.py). A bad cable: one line, exit 2."""
    from desktop_emulator.link import LinkError
    from desktop_emulator.pico import mixed
    firmware = pico.pico.firmware
    pico.close()
    play_ms = mixed.PLAY_MS if args.frames is None else args.frames * 1000 // 30
    try:
        line = mixed.run_headless(firmware, args.link_faults, args.p0 or "normal",
                                  args.seed or 0, _rules(args), play_ms=play_ms)
    except LinkError as e:
        return _fail(str(e))
    except Exception as e:
        if not _is_device_error(e):
            raise
        return _fail(str(e), 1)
    print(line, file=out)
    out.flush()
    return 0


def _is_device_error(e):
    from desktop_emulator.pico.device import DeviceError
    from desktop_emulator.pico.image import ImageError
    from desktop_emulator.devicefiles import BuildError
    return isinstance(e, (DeviceError, ImageError, BuildError))


def _rules(args):
    from shared_rules.game import Rules
    return Rules(points=args.rules == "points", manual_flip=args.manual_flip)


class _Run:
    """What one run of the command line plays and where its pictures go."""

    def __init__(self, args, loaded, windowed, clock, pico):
        from desktop_emulator.clock import SimClock, PerfClock
        from desktop_emulator.display import Presenter
        self.args = args
        self.loaded = loaded
        self.windowed = windowed
        self.pico = pico
        self.link = None             # the cable to the other process (--link)
        self.machine = None
        self.seats = None
        if loaded is None and (not windowed or any(
                v is not None for v in (args.p0, args.p1, args.seed, args.rules))
                or args.manual_flip):
            dflt0 = "human" if windowed else "normal"
            self.seats = (args.p0 or dflt0, args.p1 or "normal")
        seed = args.seed
        if seed is None:
            seed = random.SystemRandom().randrange(MAX_SEED + 1) \
                if windowed or args.terminal else 0
        self.seed = seed
        until = args.until
        if until is None and not windowed and loaded is None:
            until = "over"
        self.until = until
        self.skin_on = args.skin if args.skin is not None else windowed
        self.scale = args.scale or 6
        if loaded is not None and (not windowed or isinstance(clock, SimClock)):
            clock = SimClock(loaded.start_t)      # a replay runs on its own recorded time
        elif not windowed and args.link is not None:
            clock = clock or PerfClock()          # linked: the other process runs in real time
        elif not windowed:
            clock = clock or SimClock(start_near_wrap=args.start_near_wrap)
        elif clock is None:
            clock = PerfClock(start_near_wrap=args.start_near_wrap,
                              start=loaded.start_t if loaded is not None else None)
        self.realtime = not isinstance(clock, SimClock)  # a test's SimClock: the window steps it
        if pico is not None:
            clock = pico.clock                    # frames are timed in the chip's time
        self.clock = clock
        # One presenter for the window and every picture output, so that they all show
        # what the window shows (F9 turns them all); it learns the screen once the
        # engine exists.
        self.presenter = Presenter(
            upright=args.upright,
            screen=lambda: self.machine.app.screen_name() if self.machine else "title")
        self.dumper = None
        self.gif = None

    def open_outputs(self):
        """The per-frame outputs: --dump-frames and --gif. Returns on_show (or None)."""
        args = self.args
        if args.dump_frames is not None:
            from desktop_emulator.display import FrameDumper
            try:
                self.dumper = replays.guarded(
                    FrameDumper(args.dump_frames, self.scale, self.clock, self.presenter),
                    "--dump-frames %s" % args.dump_frames)
            except OSError as e:
                raise replays.OutputError("--dump-frames %s: %s" % (args.dump_frames,
                                                                    _why_not(e)))
        on_show = self.dumper
        if args.gif is not None:
            from desktop_emulator.gif import GifRecorder
            gif = self.gif = GifRecorder(args.gif, args.scale or (
                self.scale if self.windowed else 3), self.clock, args.gif_fps)
            presenter = self.presenter
            dumper = self.dumper

            def gif_show(panel):
                gif(presenter(panel))
            on_show = gif_show if dumper is None else (
                lambda panel: (dumper(panel), gif_show(panel)))
        return on_show

    def close_outputs(self):
        if self.dumper is not None:
            self.dumper.close()
        if self.gif is not None:
            self.gif.close()

    def engine(self, display, sound, storage=None, inp=None, keyboard=None, hint=None):
        """The engine: the firmware on the emulated Pico, or the app engine."""
        from desktop_emulator.storage import MemoryStorage
        if self.pico is not None:
            self.machine = self.pico.attach(display, sound, keyboard).boot()
        else:
            self.machine = session.AppEngine(
                self.clock, inp if inp is not None else session.QueueInput(), display,
                sound, storage if storage is not None else MemoryStorage(), hint=hint)
        return self.machine

    def start(self, keep_saved=True):
        """The replay, or the game the command line names (if it names one)."""
        m = self.machine
        if getattr(self, "link", None) is not None:
            from desktop_emulator.link import attach
            attach(m, self.link, self.clock.ticks_us())   # the lobby: B starts (docs/LINK.md)
        elif self.loaded is not None:
            m.start_replay(self.loaded)
        elif self.seats is not None:
            m.start_game(self.seats, self.seed, _rules(self.args), keep_saved=keep_saved)


def _run(args, loaded, windowed, clock, on_frame, out, pico=None, link=None):
    run = _Run(args, loaded, windowed, clock, pico)
    run.link = link
    on_show = run.open_outputs()
    screen = None
    try:
        if windowed:
            reason = _run_window(run, on_show, on_frame, out)
            if isinstance(reason, int):
                return reason                      # it could not open: said, exit status
        elif args.terminal:
            screen = _terminal_screen(out)
            reason = _run_terminal(run, on_show, screen)
            screen = None
        else:
            reason = _run_headless(run, on_show)
    finally:
        if screen is not None:
            screen.stop("stopped")
        run.close_outputs()
    return _leave_behind(args, run.machine, reason, windowed, run.skin_on, run.scale,
                         run.gif, out, run.presenter)


def _run_window(run, on_show, on_frame, out):
    """The window: the keyboard, the sound, the user's saved game."""
    import pygame
    from desktop_emulator.clock import PerfClock
    from desktop_emulator.display import Skin, WindowDisplay
    from desktop_emulator.keyboard import KeyboardInput, keys_of, default_keymap, title_hint
    from desktop_emulator.sound import MixerSound
    from desktop_emulator.storage import FileStorage, MemoryStorage
    args = run.args
    keymap = args.keymap or default_keymap()
    try:
        pygame.display.init()
        why = display_fell_back(pygame.display.get_driver())
        if why:
            pygame.display.quit()
            return _fail(why)
        labels = {p: keys_of(keymap, p) for p in (0, 1)}
        display = WindowDisplay(scale=run.scale, skin=run.skin_on, skin_obj=Skin(labels),
                                on_show=on_show, presenter=run.presenter)
    except pygame.error as e:
        return _fail("cannot open a window: %s (try --headless or make demo)" % e)
    if display.note:
        print(display.note, file=sys.stderr)
    snd = MixerSound()
    if snd.message:
        print(snd.message, file=sys.stderr)
    if run.pico is not None:
        keyboard = KeyboardInput(PerfClock(), keymap)
        machine = run.engine(display, snd, keyboard=keyboard)
    else:
        keyboard = KeyboardInput(run.clock, keymap)
        replaying = run.loaded is not None
        # Two linked processes must not share the player's saved game.
        machine = run.engine(display, snd, MemoryStorage() if replaying or run.link is not None
                             else FileStorage(),
                             None if replaying else keyboard, hint=title_hint(keymap))
    run.start(keep_saved=not args.replace_save)
    if run.loaded is None and run.seats is not None and machine.app.saved is not None \
            and not args.replace_save:
        print("a saved game is kept: this game is not saved over it "
              "(--replace-save to play over it)", file=sys.stderr)
    win = window.Window(machine, display, keyboard, realtime=run.realtime, out=out)
    try:
        return win.run(until=run.until, frames=args.frames, on_frame=on_frame)
    except KeyboardInterrupt:
        return "interrupted"


def _terminal_screen(out):
    from desktop_emulator.terminal import TerminalScreen
    try:
        cols = os.get_terminal_size(out.fileno()).columns or None
    except (OSError, ValueError, AttributeError):
        cols = None
    return TerminalScreen(out, columns=cols)


def _run_terminal(run, on_show, screen):
    """The terminal demo: headless at real speed, drawn with half blocks."""
    from desktop_emulator.display import FrameDisplay
    from desktop_emulator.sound import ListSound
    from desktop_emulator.terminal import QuitKeys
    args = run.args
    run.engine(FrameDisplay(on_show), ListSound())
    run.start()
    status = "Spit demo: P0 %s vs P1 %s, seed %d, x%g. Ctrl-C or q quits." % (
        run.seats[0], run.seats[1], run.seed, args.speed)
    try:
        with QuitKeys() as keys:
            reason = loops.run_terminal(run.machine, screen, session.device_frame_us(),
                                        until=run.until, frames=args.frames,
                                        speed=args.speed, status=status,
                                        sleep=keys.sleep, present=run.presenter)
    except KeyboardInterrupt:
        reason = "interrupted"
    screen.stop()
    return reason


def _run_headless(run, on_show):
    """As fast as it can, on the engine's own clock."""
    from desktop_emulator.display import FrameDisplay
    from desktop_emulator.sound import ListSound
    if run.link is not None:
        from host.ports import ScriptInput
        from desktop_emulator.link import run_headless
        machine = run.engine(FrameDisplay(on_show), ListSound(), inp=ScriptInput(run.clock))
        return run_headless(machine, run.link, run.seats[0], run.seed, _rules(run.args),
                            until=run.until, frames=run.args.frames)
    machine = run.engine(FrameDisplay(on_show), ListSound())
    run.start()
    if run.pico is not None:
        return machine.run_headless(until=run.until, frames=run.args.frames)
    return loops.run_headless(machine, session.device_frame_us(), until=run.until,
                              frames=run.args.frames)


def _leave_behind(args, machine, reason, windowed, skin_on, scale, gif, out, presenter):
    """What a run leaves: the replays, the GIF, a screenshot, the state line."""
    from desktop_emulator.display import Skin, render_offscreen
    if args.record is not None:
        machine.end_recording()
        if not machine.games:
            print("nothing recorded: no game was started", file=sys.stderr)
        try:
            paths = replays.write_recordings(machine, args.record,
                                             lambda m: print(m, file=sys.stderr))
        except OSError as e:
            return _fail("cannot write %s: %s" % (getattr(e, "filename", None) or
                                                  args.record, _why_not(e)))
        if len(paths) > 1:
            print("recorded %d games: %s" % (len(paths), ", ".join(paths)), file=sys.stderr)
    if gif is not None:
        try:
            if not gif.save():
                print("no GIF written: no frame was shown", file=sys.stderr)
        except OSError as e:
            return _fail("cannot write %s: %s" % (args.gif, _why_not(e)))
    if args.screenshot is not None:
        import pygame
        skin = None
        if skin_on:
            from desktop_emulator.keyboard import keys_of, default_keymap
            km = args.keymap or default_keymap()
            skin = Skin({p: keys_of(km, p) for p in (0, 1)},
                        window.seat_names(machine, {p: keys_of(km, p) for p in (0, 1)}))
        try:
            outputs.refuse(args.screenshot)
            pygame.image.save(render_offscreen(presenter(machine.display.panel), scale, skin),
                              args.screenshot)
        except (pygame.error, OSError) as e:
            return _fail("cannot save %s: %s" % (args.screenshot, _why_not(e)))
    if not windowed or args.print_state:
        if args.terminal and reason == "interrupted":
            print("stopped.", file=out)
        elif not args.terminal:
            print("%s (%s)" % (machine.summary_line(), reason), file=out)
    if args.print_state:
        print(machine.state_line(), file=out)
    out.flush()
    if machine.replay_in is not None:
        # R40: a replay reaches the states its recording says it did, or says not.
        why = machine.replay_divergence(reason == "replay end")
        if why is not None:
            print("replay %s: %s" % (args.replay, why), file=sys.stderr)
            return EXIT_DIVERGED
    return 0
