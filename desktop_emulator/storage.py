"""The storage port: ``load()`` -> dict or None, ``save(dict)``, written atomically.

:class:`FileStorage` is the device's own storage (``firmware/hw/storage.py``: a
``SPIT1 <crc32> <length>`` header line and the JSON body, written to ``<file>.tmp``,
fsynced, and renamed over the old file), kept in the user's data directory:
``$XDG_DATA_HOME/spit-handheld/spit.json``, or ``~/.local/share/spit-handheld/spit.json``
when XDG_DATA_HOME is unset. Same format as the handheld's ``/spit.json``, so a
file copied off a board (``mpremote cp :spit.json .``) resumes on the desktop and back.

``load()`` returns ``None`` when there is nothing usable: a missing file (the app's
defaults, silently), or a corrupt one (the defaults, a one-line ``message`` that the
app shows on its title screen, also written to stderr); never an exception. A save
that fails (read-only home, full disk) raises ``OSError`` like the device's; the app
catches it, plays on and says "COULD NOT SAVE".

:class:`MemoryStorage` is the same port in memory (headless runs, replays and tests,
so they never read or change the user's file).
"""

import json
import os
import sys

APP_DIR = "spit-handheld"
FILE_NAME = "spit.json"


def data_dir(environ=None):
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME") or ""
    if not base or not os.path.isabs(base):  # the XDG spec: ignore relative paths
        home = env.get("HOME") or os.path.expanduser("~")
        base = os.path.join(home, ".local", "share")
    return os.path.join(base, APP_DIR)


def screenshot_dir(environ=None):
    """Where F12 puts its screenshots: ``screenshots/`` beside the save file, in the
    user's data directory, never the current directory (which is often the
    repository)."""
    return os.path.join(data_dir(environ), "screenshots")


def default_path(environ=None):
    return os.path.join(data_dir(environ), FILE_NAME)


class MemoryStorage:
    """A dict kept as JSON text, as a file would keep it."""

    def __init__(self, data=None):
        self.text = json.dumps(data) if data is not None else None
        self.saves = 0
        self.message = None

    def load(self):
        return None if self.text is None else json.loads(self.text)

    def save(self, data):
        self.text = json.dumps(data)
        self.saves += 1


def _desktop_flash():
    """The device's file operations, but syncing just the file written (fsync) rather
    than every filesystem on the machine (os.sync), which on a busy desktop can stall
    a frame."""
    from firmware.hw.storage import Flash

    class DesktopFlash(Flash):
        def write(self, name, data):
            with open(name, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())

    return DesktopFlash()


class FileStorage:
    def __init__(self, path=None, stderr=None):
        from firmware.hw.storage import FileStorage as DeviceStorage
        self.path = path or default_path()
        self._device = DeviceStorage(self.path, fs=_desktop_flash())
        self._stderr = stderr if stderr is not None else sys.stderr
        self.message = None

    def load(self):
        d = self._device.load()
        self.message = self._device.message
        if self.message:
            self._say("%s; using defaults" % self.message.lower())
        return d

    def save(self, data):
        try:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            self._device.save(data)
        except OSError as e:
            # The app plays on and its title says COULD NOT SAVE; say why here too.
            self._say("cannot save: %s" % (e.strerror or e))
            raise

    def sibling(self, name):
        """The storage of another file beside this one, e.g. the reaction lab's
        ``lab.json`` (firmware/lab_store.py)."""
        return FileStorage(os.path.join(os.path.dirname(self.path), name), self._stderr)

    def report(self, note):
        """The app's word on what it loaded (a file that passed its checksum but holds
        another version, a bad snapshot ...): one line on stderr, as for a corrupt one."""
        if note and note != self.message:
            self._say("%s; using what could be used" % note.lower())

    def _say(self, what):
        try:
            print("storage: %s: %s" % (self.path, what), file=self._stderr)
        except (OSError, ValueError):
            pass
