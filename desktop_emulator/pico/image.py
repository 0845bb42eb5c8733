"""What the emulated Pico boots: a MicroPython UF2 for the Pico, the RP2040 boot ROM,
and the flash image made of both plus the filesystem.

The firmware image is looked for in ``--firmware PATH`` (a ``.uf2`` file, or a folder
holding one), then in ``../shared/rp2/`` beside the repository. The boot ROM and the
SSD1306 driver are looked for beside the UF2 (``rp2040-bootrom*.bin``,
``lib/ssd1306.py`` or ``ssd1306.py``), then in ``../shared/rp2/``.
"""

import struct
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED_RP2 = REPO.parent / "shared" / "rp2"

FLASH_SIZE = 2 * 1024 * 1024          # the Pico's W25Q16JV
FLASH_BASE = 0x10000000
BOOTROM_SIZE = 16 * 1024
UF2_BLOCK = 512
UF2_MAGIC0 = 0x0A324655
UF2_MAGIC1 = 0x9E5D5157
UF2_MAGIC_END = 0x0AB16F30
UF2_FAMILY_ID_PRESENT = 0x2000
RP2040_FAMILY = 0xE48BFF56

WHERE_TO_GET = ("no MicroPython image for the Pico: download the official UF2 for the "
                "Raspberry Pi Pico (RPI_PICO, v1.24 or later) from "
                "https://micropython.org/download/RPI_PICO/ and pass --firmware PATH "
                "(the .uf2, with the RP2040 boot ROM rp2040-bootrom-b1.bin beside it)")


class ImageError(Exception):
    """A firmware image, boot ROM or filesystem that cannot be used (one line)."""


class Firmware:
    """The files the emulated Pico needs, found and checked."""

    def __init__(self, uf2, bootrom, ssd1306):
        self.uf2 = Path(uf2)
        self.bootrom = Path(bootrom)
        self.ssd1306 = Path(ssd1306) if ssd1306 is not None else None

    def __repr__(self):
        return "Firmware(%s)" % self.uf2

    def symbols(self):
        """{name: address} from the image's symbol table (`nm -n` of its ELF, beside the
        UF2 with the suffix .sym, as ../shared/rp2 has it); {} without one."""
        path = self.uf2.with_suffix(".sym")
        table = {}
        try:
            text = path.read_text(errors="replace")
        except OSError:
            return table
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 3:
                try:
                    table[parts[2]] = int(parts[0], 16)
                except ValueError:
                    continue
        return table


def _first(folder, patterns):
    for pat in patterns:
        hits = sorted(folder.glob(pat))
        if hits:
            return hits[0]
    return None


def find_firmware(path=None, shared=SHARED_RP2):
    """-> Firmware; ImageError with one line saying what is missing and where to get it."""
    folders = []
    uf2 = None
    if path is not None:
        p = Path(path)
        if p.is_dir():
            uf2 = _first(p, ["*RPI_PICO*.uf2", "*.uf2"])
            folders.append(p)
        elif p.is_file():
            uf2 = p
            folders.append(p.parent)
        else:
            raise ImageError("--firmware %s: no such file or folder; %s" % (path, WHERE_TO_GET))
        if uf2 is None:
            raise ImageError("--firmware %s: no .uf2 in that folder; %s" % (path, WHERE_TO_GET))
    folders.append(Path(shared))
    if uf2 is None:
        if Path(shared).is_dir():
            uf2 = _first(Path(shared), ["*RPI_PICO.uf2", "*RPI_PICO*.uf2", "*.uf2"])
        if uf2 is None:
            raise ImageError(WHERE_TO_GET)
    bootrom = None
    driver = None
    for f in folders:
        if not f.is_dir():
            continue
        bootrom = bootrom or _first(f, ["rp2040-bootrom*.bin", "bootrom*.bin"])
        driver = driver or _first(f, ["lib/ssd1306.py", "ssd1306.py"])
    if bootrom is None:
        raise ImageError("no RP2040 boot ROM (rp2040-bootrom-b1.bin, 16 KB) beside %s or in "
                         "%s: the emulator needs it to boot MicroPython" % (uf2, shared))
    return Firmware(uf2, bootrom, driver)


def uf2_to_flash(data, name="firmware"):
    """UF2 bytes -> {flash offset: payload}; ImageError if it is not an RP2040 image."""
    if len(data) == 0 or len(data) % UF2_BLOCK:
        raise ImageError("%s is not a UF2 file (its size, %d bytes, is not a whole number "
                         "of 512-byte blocks)" % (name, len(data)))
    chunks = {}
    for i in range(0, len(data), UF2_BLOCK):
        block = data[i:i + UF2_BLOCK]
        m0, m1, flags, addr, size, _no, _count, family = struct.unpack_from("<8I", block)
        (end,) = struct.unpack_from("<I", block, UF2_BLOCK - 4)
        if m0 != UF2_MAGIC0 or m1 != UF2_MAGIC1 or end != UF2_MAGIC_END:
            raise ImageError("%s is not a UF2 file (bad magic in block %d)" % (name, i // UF2_BLOCK))
        if flags & UF2_FAMILY_ID_PRESENT and family != RP2040_FAMILY:
            raise ImageError("%s is not an RP2040 image (UF2 family 0x%08x; a Pico 2 / RP2350 "
                             "image cannot run on this emulator)" % (name, family))
        if size > 476 or not FLASH_BASE <= addr < FLASH_BASE + FLASH_SIZE:
            raise ImageError("%s: block %d targets 0x%08x, outside the Pico's flash"
                             % (name, i // UF2_BLOCK, addr))
        chunks[addr - FLASH_BASE] = block[32:32 + size]
    if 0 not in chunks:
        raise ImageError("%s has no boot stage at the start of flash" % name)
    return chunks


def check_bootrom(data, name="boot ROM"):
    if len(data) != BOOTROM_SIZE:
        raise ImageError("%s is %d bytes, not the RP2040's 16 KB boot ROM" % (name, len(data)))
    (table,) = struct.unpack_from("<H", data, 0x14)
    if not 0x18 <= table < BOOTROM_SIZE - 4 or data[0x10:0x13] != b"Mu\x01":
        raise ImageError("%s is not an RP2040 boot ROM (no function table)" % name)
    return data


def flash_image(firmware, fs_image=None, fs_offset=None):
    """The Pico's flash contents: the UF2's payload, and the filesystem image at its
    offset. Raises ImageError if the two overlap or the filesystem does not fit."""
    try:
        data = firmware.uf2.read_bytes()
    except OSError as e:
        raise ImageError("cannot read %s: %s" % (firmware.uf2, e.strerror or e)) from None
    chunks = uf2_to_flash(data, firmware.uf2.name)
    flash = bytearray(b"\xff" * FLASH_SIZE)
    end = 0
    for off, payload in chunks.items():
        flash[off:off + len(payload)] = payload
        end = max(end, off + len(payload))
    if fs_image is not None:
        if fs_offset < end:
            raise ImageError("the filesystem at 0x%x would overwrite the firmware (which ends "
                             "at 0x%x)" % (fs_offset, end))
        if fs_offset + len(fs_image) > FLASH_SIZE:
            raise ImageError("the filesystem image does not fit the Pico's flash")
        flash[fs_offset:fs_offset + len(fs_image)] = fs_image
    return bytes(flash)


def read_bootrom(firmware):
    try:
        data = firmware.bootrom.read_bytes()
    except OSError as e:
        raise ImageError("cannot read %s: %s" % (firmware.bootrom, e.strerror or e)) from None
    return check_bootrom(data, firmware.bootrom.name)
