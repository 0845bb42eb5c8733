"""The emulated Pico's USB serial port as a real serial device (a pseudo-terminal),
so unmodified tools talk to it as to a board on /dev/ttyACM0: mpremote, ``make repl``,
``make deploy PORT=...``, a terminal program.

    with SerialPort(pico) as port:          # the chip runs in a background thread
        subprocess.run(["mpremote", "connect", port.name, "exec", "print(1)"])

The thread runs the chip in short slices of guest time and moves bytes both ways
between the pseudo-terminal and the emulated USB CDC. POSIX only (pty).
"""

import os
import select
import threading
import time

SLICE_US = 2000


class SerialPort:
    def __init__(self, pico, slice_us=SLICE_US, wall_limit_s=600.0):
        import pty
        import tty
        self.pico = pico
        self.slice_us = slice_us
        self.wall_limit_s = wall_limit_s
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.name = os.ttyname(self.slave)
        self.error = None
        self._stop = threading.Event()
        self._thread = None
        self.lock = threading.Lock()      # held while a slice runs: take it to use pico

    def start(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        end = time.monotonic() + self.wall_limit_s
        try:
            while not self._stop.is_set():
                if time.monotonic() > end:
                    raise TimeoutError("serial port open for over %.0f s" % self.wall_limit_s)
                r, _w, _x = select.select([self.master], [], [], 0)
                with self.lock:
                    if r:
                        data = os.read(self.master, 4096)
                        if data:
                            self.pico.write(data)
                    self.pico.run_for(self.slice_us, stop_on_serial=False)
                    out = self.pico.drain_serial()
                if out:
                    os.write(self.master, out)
        except Exception as e:          # reported by stop(); the port simply goes quiet
            self.error = e

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.error is not None:
            raise self.error

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
