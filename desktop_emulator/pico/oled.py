"""An SSD1306 as seen from its I2C pins: the real driver's traffic in, the 128x64
picture out.

The panel's memory (GDDRAM) is 8 pages of 128 columns, one byte per column and page,
bit 0 at the top: exactly MicroPython's MONO_VLSB framebuffer, so once a frame has been
sent, :attr:`ram` equals the bytes of the device's ``FrameBuffer``.

Each I2C write starts with a control byte: ``0x00`` a stream of commands, ``0x80`` one
command (then another control byte), ``0x40`` a stream of display data, ``0xC0`` one data
byte. micropython-lib's driver sends every command as its own ``0x80`` write (so a
command's arguments arrive in later transactions) and the pixels as one ``0x40`` write.
"""

WIDTH = 128
PAGES = 8

# Commands and how many argument bytes follow each.
_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0x81: 1, 0x8D: 1,
         0xA3: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}


class Oled:
    def __init__(self, address=0x3C):
        self.address = address
        self.ram = bytearray(WIDTH * PAGES)
        self.on = False
        self.inverted = False
        self.contrast = 0x7F
        self.mode = 2                 # addressing: 0 horizontal, 1 vertical, 2 page (reset)
        self.col0, self.col1 = 0, WIDTH - 1
        self.page0, self.page1 = 0, PAGES - 1
        self.col = 0
        self.page = 0
        self._cmd = None              # a command waiting for its arguments
        self._args = []
        self.data_writes = 0          # transactions that carried pixels
        self.commands = 0
        self.last_data_t = None       # guest ns at the end of the last pixel write

    # ---- the I2C side -----------------------------------------------------------------
    def transaction(self, t_end, addr, data, acked=True):
        """One finished I2C write to `addr` (bytes after the address byte)."""
        if addr != self.address or not acked or not data:
            return False
        i = 0
        wrote = False
        while i < len(data):
            ctrl = data[i]
            i += 1
            single = ctrl & 0x80
            if ctrl & 0x40:
                if single:
                    if i < len(data):
                        self._data(data[i])
                        i += 1
                    wrote = True
                    continue
                for b in data[i:]:
                    self._data(b)
                wrote = wrote or i < len(data)
                break
            if single:
                if i < len(data):
                    self._command_byte(data[i])
                    i += 1
                continue
            for b in data[i:]:
                self._command_byte(b)
            break
        if wrote:
            self.data_writes += 1
            self.last_data_t = t_end
        return wrote

    def _command_byte(self, b):
        if self._cmd is not None:
            self._args.append(b)
            if len(self._args) == _ARGS[self._cmd]:
                cmd, args = self._cmd, self._args
                self._cmd, self._args = None, []
                self._apply(cmd, args)
            return
        self.commands += 1
        if b in _ARGS:
            self._cmd, self._args = b, []
        else:
            self._apply(b, ())

    def _apply(self, cmd, args):
        if cmd == 0xAE:
            self.on = False
        elif cmd == 0xAF:
            self.on = True
        elif cmd == 0xA6:
            self.inverted = False
        elif cmd == 0xA7:
            self.inverted = True
        elif cmd == 0x81:
            self.contrast = args[0]
        elif cmd == 0x20:
            self.mode = args[0] & 3
        elif cmd == 0x21:
            self.col0, self.col1 = args[0] & 0x7F, args[1] & 0x7F
            self.col = self.col0
        elif cmd == 0x22:
            self.page0, self.page1 = args[0] & 7, args[1] & 7
            self.page = self.page0
        elif 0xB0 <= cmd <= 0xB7:
            self.page = cmd & 7
        elif cmd <= 0x0F:
            self.col = (self.col & 0xF0) | cmd
        elif 0x10 <= cmd <= 0x1F:
            self.col = (self.col & 0x0F) | ((cmd & 0x0F) << 4)
        # Other commands (multiplex, clocks, charge pump, remap, scroll) do not change
        # what the memory holds.

    def _data(self, b):
        self.ram[self.page * WIDTH + self.col] = b
        if self.mode == 0:                    # horizontal
            if self.col >= self.col1:
                self.col = self.col0
                self.page = self.page0 if self.page >= self.page1 else self.page + 1
            else:
                self.col += 1
        elif self.mode == 1:                  # vertical
            if self.page >= self.page1:
                self.page = self.page0
                self.col = self.col0 if self.col >= self.col1 else self.col + 1
            else:
                self.page += 1
        else:                                 # page mode: wraps within the page
            self.col = 0 if self.col >= WIDTH - 1 else self.col + 1

    # ---- the picture ------------------------------------------------------------------
    def pixel(self, x, y):
        return (self.ram[(y >> 3) * WIDTH + x] >> (y & 7)) & 1

    def visible(self):
        """What a person sees: the memory, or nothing while the panel is off."""
        if not self.on:
            return bytes(len(self.ram))
        if self.inverted:
            return bytes(b ^ 0xFF for b in self.ram)
        return bytes(self.ram)
