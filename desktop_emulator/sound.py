"""The sound port: ``play(tune)``, non-blocking.

A tune is the firmware's data (``firmware/sound.py``): ``(name, freq_hz, ms, freq_hz,
ms, ...)``, frequency 0 a rest. The device drives a piezo with a square wave, so the
emulator synthesises the same square wave (50% duty) into a pygame ``Sound`` and plays
it on one mixer channel; like the buzzer, a new tune cuts off the one playing.

:class:`MixerSound` never raises: if the mixer cannot start (no audio device, SDL's
``dummy`` driver missing, a broken PulseAudio) it says so once in ``message`` and
stays silent. With ``SDL_AUDIODRIVER=dummy`` it "plays" into nothing. Both it and
:class:`ListSound` (headless runs and tests) keep the names of the tunes played.

The mixer is started with the process's stderr (file descriptor 2) pointed at the null
device: on a machine without a sound card ALSA's library prints eight lines of "ALSA
lib ... cannot find card" there, from C, before SDL gives up. The reason SDL gives
comes back in its exception and makes the one line of ``message``.
"""

import os
import sys
from array import array

RATE = 44100
AMPLITUDE = 5000  # of 32767: a piezo is loud, a laptop's speakers need not be
FADE = 32         # samples of ramp at each note edge, against clicks


def notes(tune):
    """[(freq_hz, ms), ...] of a tune (the firmware's format)."""
    return [(tune[k], tune[k + 1]) for k in range(1, len(tune) - 1, 2)]


def synth(tune, rate=RATE, amplitude=AMPLITUDE, channels=1):
    """The tune as signed 16-bit samples (interleaved when channels > 1)."""
    out = array("h")
    for freq, ms in notes(tune):
        n = rate * ms // 1000
        if freq <= 0 or freq * 2 >= rate:
            out.extend(array("h", bytes(2 * n)))
            continue
        fade = min(FADE, n // 4)
        note = array("h", bytes(2 * n))
        for i in range(n):
            v = amplitude if ((i * 2 * freq) // rate) & 1 == 0 else -amplitude
            if i < fade:
                v = v * i // fade
            elif i >= n - fade:
                v = v * (n - 1 - i) // fade
            note[i] = v
        out.extend(note)
    if channels > 1:
        wide = array("h", bytes(2 * len(out) * channels))
        for c in range(channels):
            wide[c::channels] = out
        out = wide
    return out


class ListSound:
    """Records what was played (headless, tests)."""

    def __init__(self):
        self.played = []
        self.message = None

    def play(self, tune):
        self.played.append(tune[0])


class QuietStderr:
    """Point file descriptor 2 at the null device for the block: C libraries write
    there, past sys.stderr. Does nothing where descriptors cannot be swapped."""

    def __enter__(self):
        self._saved = None
        try:
            sys.stderr.flush()
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                self._saved = os.dup(2)
                os.dup2(null, 2)
            finally:
                os.close(null)
        except (OSError, AttributeError, ValueError):
            self._saved = None
        return self

    def __exit__(self, *exc):
        if self._saved is not None:
            os.dup2(self._saved, 2)
            os.close(self._saved)
        return False


class MixerSound:
    def __init__(self, enabled=True):
        self.played = []
        self.message = None
        self._cache = {}
        self._channel = None
        self._rate = RATE
        self._channels = 1
        if not enabled:
            return
        try:
            import pygame
            init = pygame.mixer.get_init()
            if init is None or init[1] != -16:
                if init is not None:
                    pygame.mixer.quit()
                with QuietStderr():
                    pygame.mixer.init(RATE, -16, 1, 512)
                init = pygame.mixer.get_init()
            if init is None or init[1] != -16:
                raise RuntimeError("mixer format %r" % (init,))
            self._rate, _size, self._channels = init
            self._channel = pygame.mixer.Channel(0)
        except Exception as e:  # no audio device: play silently
            self.message = "sound: mixer unavailable (%s); playing silently" % (
                str(e).strip() or type(e).__name__)
            self._channel = None

    @property
    def ok(self):
        return self._channel is not None

    def sound_of(self, tune):
        snd = self._cache.get(tune)
        if snd is None:
            import pygame
            samples = synth(tune, self._rate, AMPLITUDE, self._channels)
            snd = pygame.mixer.Sound(buffer=samples.tobytes())
            self._cache[tune] = snd
        return snd

    def play(self, tune):
        self.played.append(tune[0])
        if len(self.played) > 1000:
            del self.played[:500]
        if self._channel is None:
            return
        try:
            self._channel.play(self.sound_of(tune))
        except Exception as e:  # a device that vanished mid-game: go silent
            self.message = "sound: %s; playing silently" % (str(e).strip() or type(e).__name__)
            self._channel = None
