"""Faults on the emulated Pico, where the behaviour lives in the rp2 port: a display
missing at power-up or NACKing in the middle of a game, and buzzer notes that must keep
their length however long a frame takes."""


import pytest

from desktop_emulator.pico.device import Pico, MS
from desktop_emulator.pico.engine import PwmTone
from firmware import sound
from firmware.boards import pico as board

pytestmark = pytest.mark.pico

BUTTONS = [g for g, _p, _n in board.BUTTONS]


def title_picture(fw, files):
    with Pico(fw, files=files, buttons=BUTTONS) as ref:
        ref.boot()
        ref.read_until(b"spit: screen=title", guest_ms=3000, what="the title")
        ref.run_for(100_000)
        return bytes(ref.oled.ram)


def tones(pico, since_ns=0):
    """[(t_ns, freq)] of the buzzer pin, from the PWM writes the chip made."""
    tone = PwmTone(None)
    tone.update(pico)
    return [(t, f) for t, f in tone.notes if t >= since_ns]


def test_a_board_without_its_display_says_so_by_ear_and_plays_on(pico_firmware, pico_files):
    expected = title_picture(pico_firmware, pico_files)
    with Pico(pico_firmware, files=pico_files, buttons=BUTTONS, i2c_addresses=()) as pico:
        pico.boot()
        pico.read_until(b"spit: no display", guest_ms=3000, what="the no-display report")
        t_warn = pico.t_ns
        pico.run_for(1_000_000)
        assert b"spit: screen=title" in pico.transcript          # the game runs anyway
        heard = [f for _t, f in tones(pico, t_warn - 100 * MS) if f]
        assert heard[:3] == [f for f, _ms in sound.notes(sound.NO_DISPLAY) if f]
        assert not pico.oled.on
        pico.configure(i2c_addresses=[0x3C])                       # plugged in
        pico.read_until(b"spit: display ok", guest_ms=3000, what="the display")
        pico.run_for(100_000)
        assert pico.oled.on and bytes(pico.oled.ram) == expected   # the whole title, sent
        assert [why for _t, why in pico.resets] == ["power"]


def test_a_display_glitch_mid_game_is_survived(pico_firmware, pico_files):
    from desktop_emulator.display import FrameDisplay
    from desktop_emulator.pico.engine import PicoMachine
    from shared_rules.game import Rules
    m = PicoMachine(pico_firmware, wall_limit_s=300)
    m.pico.files = pico_files
    try:
        m.attach(FrameDisplay()).boot()
        m.start_game(("hard", "hard"), 4, Rules())
        m.run_guest(3_000_000)
        m.pico.configure(i2c_nack_after=3)          # the third byte from now is not acked
        m.pico.read_until(b"spit: display lost", guest_ms=2000, what="the glitch's report")
        m.pico.read_until(b"spit: display ok", guest_ms=3000, what="the recovery")
        m.run_headless(until="round")
        assert m.app.screen == "summary"
        info = m.finish()
        assert info["snap"]["round"] == 2
        # The buffer as hex after a collection: the JSON of a list of 1024 ints needed
        # one block (2672 bytes) that the heap no longer had once the link's UART
        # buffers (3 KB) were on it too.
        got = m.pico.eval_json("[__import__('gc').collect() or m.app.ports.display.buffer.hex(),"
                               " m.app.ports.display.errors, m.app.ports.display.recoveries]")
        assert got[1] >= 1 and got[2] >= 1
        assert bytes.fromhex(got[0]) == bytes(m.pico.oled.ram)     # the panel shows it all
        assert [why for _t, why in m.pico.resets] == ["power"]      # never reset
    finally:
        m.close()


def test_notes_keep_their_length_while_a_frame_is_drawn(pico_firmware, pico_files_no_main):
    # An 8 ms note, then a 30 ms busy "frame" in which nobody calls buzzer.step().
    with Pico(pico_firmware, files=pico_files_no_main, buttons=BUTTONS) as pico:
        pico.boot_to_raw()
        t0 = pico.t_ns
        pico.exec("import machine, time\n"
                  "from firmware.hw.buzzer import Buzzer\n"
                  "b = Buzzer(%d, machine)\n"
                  "b.play(('t', 2000, 8, 1000, 8))\n"
                  "t = time.ticks_us()\n"
                  "x = 0\n"
                  "while time.ticks_diff(time.ticks_us(), t) < 30000:\n"
                  "    x += 1\n" % board.BUZZER)
        notes = tones(pico, t0)
    starts = [t for t, f in notes if f == 2000]
    seconds = [t for t, f in notes if f == 1000]
    silent = [t for t, f in notes if f == 0 and seconds and t > seconds[0]]
    assert starts and seconds and silent
    first = (seconds[0] - starts[0]) / MS
    second = (silent[0] - seconds[0]) / MS
    assert 7.5 <= first <= 9.5, first          # stepped from the loop it would be ~30 ms
    assert 7.5 <= second <= 9.5, second



