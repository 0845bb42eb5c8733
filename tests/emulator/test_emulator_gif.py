"""desktop_emulator/gif.py and ``--gif``: the GIF89a writer, checked with a small
decoder written here (blocks, LZW, frame compositing) and with pygame's own GIF
loader (SDL_image), which reads the first frame."""

import io
import random
import re
import struct

import pygame
import pytest

from desktop_emulator import cli
from desktop_emulator.clock import SimClock
from desktop_emulator.display import BUF_LEN, H, OFF, ON, W, pixel_rows
from desktop_emulator.gif import GifRecorder, GifWriter, changed_box, lzw_encode


# ---------------------------------------------------------------- a test-side decoder

def lzw_decode(data, min_code_size):
    """-> (indices, number of clear codes seen). Strict: a code the table does not have
    yet (other than the one being defined) or a missing end code is an error."""
    clear = 1 << min_code_size
    end = clear + 1
    bits = int.from_bytes(data, "little")
    nbits = len(data) * 8
    pos = 0
    size = min_code_size + 1
    table = None
    prev = None
    out = bytearray()
    clears = 0
    while True:
        if pos + size > nbits:
            raise ValueError("the code stream ends without an end code")
        code = (bits >> pos) & ((1 << size) - 1)
        pos += size
        if code == clear:
            table = [bytes([i]) for i in range(clear)] + [None, None]
            size = min_code_size + 1
            prev = None
            clears += 1
            continue
        if code == end:
            return bytes(out), clears
        if table is None:
            raise ValueError("the stream does not start with a clear code")
        if code < len(table) and table[code] is not None:
            entry = table[code]
        elif code == len(table) and prev is not None:
            entry = prev + prev[:1]
        else:
            raise ValueError("code %d before it is defined (table %d)" % (code, len(table)))
        if prev is not None and len(table) < 4096:
            table.append(prev + entry[:1])
            if len(table) == 1 << size and size < 12:
                size += 1
        out += entry
        prev = entry


def parse_gif(data):
    """-> dict: size, colours, loop, frames [{delay, disposal, box, indices, clears}]."""
    assert data[:6] == b"GIF89a"
    w, h, packed, bg, aspect = struct.unpack_from("<HHBBB", data, 6)
    pos = 13
    colours = []
    if packed & 0x80:
        n = 2 << (packed & 7)
        colours = [tuple(data[pos + 3 * i:pos + 3 * i + 3]) for i in range(n)]
        pos += 3 * n
    gif = {"size": (w, h), "colours": colours, "loop": None, "frames": [],
           "trailer": False}
    gce = None

    def blocks(pos):
        out = bytearray()
        while data[pos]:
            out += data[pos + 1:pos + 1 + data[pos]]
            pos += 1 + data[pos]
        return bytes(out), pos + 1

    while pos < len(data):
        b = data[pos]
        if b == 0x3B:
            gif["trailer"] = pos == len(data) - 1
            break
        if b == 0x21:
            label = data[pos + 1]
            body, pos = blocks(pos + 2)
            if label == 0xFF and body[:11] == b"NETSCAPE2.0":
                assert body[11] == 1
                gif["loop"] = struct.unpack_from("<H", body, 12)[0]
            elif label == 0xF9:
                assert len(body) == 4
                gce = {"disposal": (body[0] >> 2) & 7, "transparent": body[0] & 1,
                       "delay": struct.unpack_from("<H", body, 1)[0]}
            continue
        assert b == 0x2C, "unexpected block 0x%02x at %d" % (b, pos)
        x, y, fw, fh, fpacked = struct.unpack_from("<HHHHB", data, pos + 1)
        assert fpacked == 0                     # no local colour table, not interlaced
        mcs = data[pos + 10]
        code, pos = blocks(pos + 11)
        indices, clears = lzw_decode(code, mcs)
        assert len(indices) == fw * fh
        assert gce is not None, "each frame has its own graphic control extension"
        gif["frames"].append(dict(gce, box=(x, y, fw, fh), indices=indices, clears=clears))
        gce = None
    return gif


def composite(gif):
    """The picture after each frame (row-major colour indices, the canvas size)."""
    w, h = gif["size"]
    canvas = bytearray(w * h)
    out = []
    for f in gif["frames"]:
        x, y, fw, fh = f["box"]
        for r in range(fh):
            canvas[(y + r) * w + x:(y + r) * w + x + fw] = f["indices"][r * fw:(r + 1) * fw]
        out.append(bytes(canvas))
    return out


def scaled(buf, k):
    """The framebuffer as the GIF should show it: row-major 0/1, each pixel k x k."""
    rows = pixel_rows(buf)
    out = bytearray()
    for y in range(H):
        row = bytes(v for v in rows[y * W:(y + 1) * W] for _ in range(k))
        out += row * k
    return bytes(out)


def to_vlsb(pixels):
    """Row-major 0/1 128x64 pixels -> MONO_VLSB bytes."""
    buf = bytearray(BUF_LEN)
    for y in range(H):
        for x in range(W):
            if pixels[y * W + x]:
                buf[(y >> 3) * W + x] |= 1 << (y & 7)
    return bytes(buf)


def unscale(pixels, k):
    w = W * k
    return bytes(pixels[(y * k) * w + x * k] for y in range(H) for x in range(W))


def rgb_of(pixels):
    table = {0: bytes(OFF), 1: bytes(ON)}
    return b"".join(table[v] for v in pixels)


def some_frames():
    """A few real screens: the app's framebuffers from a headless CPU game."""
    from desktop_emulator import session
    from desktop_emulator.display import FrameDisplay
    from desktop_emulator.sound import ListSound
    from desktop_emulator.storage import MemoryStorage
    from shared_rules.game import Rules
    clock = SimClock()
    shown = []
    m = session.AppEngine(clock, session.QueueInput(),
                        FrameDisplay(lambda panel: shown.append(bytes(panel))),
                        ListSound(), MemoryStorage())
    m.start_game(("hard", "easy"), 3, Rules())
    for _ in range(200):
        clock.advance(session.device_frame_us())
        m.step()
    return shown


# ---------------------------------------------------------------- LZW

@pytest.mark.parametrize("mcs", [2, 4, 8])
def test_lzw_round_trip_on_random_data_through_table_resets(mcs):
    rnd = random.Random(mcs)
    for n in (0, 1, 2, 3, 7, 255, 4000, 30000):
        data = bytes(rnd.randrange(1 << mcs) for _ in range(n))
        back, clears = lzw_decode(lzw_encode(data, mcs), mcs)
        assert back == data
    # 30000 random symbols overflow the 4096-code table: the encoder cleared it again.
    assert clears >= 2
    # ... and runs (the kind of data the OLED gives) compress and round-trip too.
    runs = b"".join(bytes([rnd.randrange(1 << mcs)]) * rnd.randrange(1, 40)
                    for _ in range(3000))
    code = lzw_encode(runs, mcs)
    assert lzw_decode(code, mcs)[0] == runs and len(code) < len(runs) // 2


def test_lzw_refuses_indices_wider_than_the_code_size():
    with pytest.raises(ValueError):
        lzw_encode(b"\x00\x04", 2)
    with pytest.raises(ValueError):
        lzw_encode(b"\x00", 1)


# ---------------------------------------------------------------- the file

def test_header_colours_loop_delays_and_trailer():
    frames = some_frames()[:5]
    w = GifWriter(scale=2)
    for i, f in enumerate(frames):
        w.add(f, 4 + i)
    data = w.finish()
    gif = parse_gif(data)
    assert data.startswith(b"GIF89a") and data.endswith(b"\x3b") and gif["trailer"]
    assert gif["size"] == (256, 128)
    assert gif["colours"] == [OFF, ON]            # the emulator's OLED colours
    assert gif["loop"] == 0                       # NETSCAPE2.0, loop forever
    assert [f["delay"] for f in gif["frames"]] == [4, 5, 6, 7, 8][:len(gif["frames"])]
    assert all(f["disposal"] == 1 and not f["transparent"] for f in gif["frames"])
    pictures = composite(gif)
    for f, pic in zip(frames, pictures):
        assert pic == scaled(f, 2)


def test_pygame_reads_the_first_frame_as_the_scaled_framebuffer(tmp_path):
    first = some_frames()[-1]
    rnd = random.Random(9)
    noise = bytes(rnd.randrange(256) for _ in range(BUF_LEN))
    for buf, k in ((first, None), (noise, 6)):
        w = GifWriter() if k is None else GifWriter(scale=k)     # default scale 3
        k = k or 3
        w.add(buf, 10)
        w.add(bytes(BUF_LEN), 10)
        path = tmp_path / "one.gif"
        path.write_bytes(w.finish())
        surf = pygame.image.load(str(path))
        assert surf.get_size() == (128 * k, 64 * k)
        assert pygame.image.tobytes(_rgb24(surf), "RGB") == rgb_of(scaled(buf, k))
    # the noise filled the 4096-code table twice: SDL_image followed the clear codes too
    assert parse_gif(path.read_bytes())["frames"][0]["clears"] >= 3


def _rgb24(surf):
    out = pygame.Surface(surf.get_size(), depth=24)
    out.blit(surf, (0, 0))
    return out


@pytest.mark.skipif(not hasattr(pygame.image, "load_animation"),
                    reason="pygame without load_animation")
def test_sdl_image_reads_every_frame_and_delay(tmp_path):
    frames = some_frames()[::7][:8]
    w = GifWriter(scale=1)
    for f in frames:
        w.add(f, 20)
    path = tmp_path / "anim.gif"
    path.write_bytes(w.finish())
    anim = pygame.image.load_animation(str(path))
    assert len(anim) == len(frames)
    for (surf, delay_ms), f in zip(anim, frames):
        assert delay_ms == 200
        assert pygame.image.tobytes(_rgb24(surf), "RGB") == rgb_of(scaled(f, 1))


def test_later_frames_are_only_the_changed_rectangle():
    frames = some_frames()
    a = frames[-1]
    b = bytearray(a)
    b[3 * W + 40] ^= 0b00010000                  # pixel (40, 28)
    b[5 * W + 90] ^= 0b00000010                  # pixel (90, 41)
    assert changed_box(a, bytes(b)) == (40, 28, 90, 41)
    assert changed_box(a, a) is None
    w = GifWriter(scale=3)
    w.add(a, 10)
    w.add(bytes(b), 10)
    gif = parse_gif(w.finish())
    assert gif["frames"][0]["box"] == (0, 0, 384, 192)
    assert gif["frames"][1]["box"] == (120, 84, 51 * 3, 14 * 3)
    assert composite(gif)[1] == scaled(bytes(b), 3)


def test_a_repeated_frame_lengthens_the_one_before():
    frames = some_frames()
    a, b = frames[-1], frames[-2]
    assert a != b
    w = GifWriter()
    for buf, d in ((a, 10), (a, 10), (a, 5), (b, 10), (b, 3), (a, 7)):
        w.add(buf, d)
    gif = parse_gif(w.finish())
    assert [f["delay"] for f in gif["frames"]] == [25, 13, 7]


def test_a_delay_longer_than_16_bits_is_split():
    w = GifWriter(scale=1)
    w.add(bytes(BUF_LEN), 70000)
    gif = parse_gif(w.finish())
    assert sum(f["delay"] for f in gif["frames"]) == 70000
    assert len(set(composite(gif))) == 1


def test_differencing_makes_a_mostly_static_clip_small():
    # A still screen with one blinking 8x8 block: each later frame is a small rectangle.
    base = some_frames()[-1]
    blink = bytearray(base)
    for x in range(60, 68):
        blink[2 * W + x] ^= 0xFF
    clip = [base if i % 2 == 0 else bytes(blink) for i in range(40)]
    w = GifWriter()
    for f in clip:
        w.add(f, 10)
    diffed = len(w.finish())
    full = 0                                      # the same frames, each whole
    for f in clip:
        one = GifWriter()
        one.add(f, 10)
        full += len(one.finish())
    assert diffed * 5 < full
    gif = parse_gif(w.finish())
    assert len(gif["frames"]) == 40
    assert all(f["box"] == (180, 48, 24, 24) for f in gif["frames"][1:])


@pytest.mark.slow
def test_a_30_second_clip_at_10_fps_encodes_whole():
    # How long it takes is a benchmark's figure (tools/bench_emulator.py), not a test's.
    frames = some_frames()
    clip = [frames[(i * 3) % len(frames)] for i in range(300)]
    w = GifWriter(scale=3)
    for f in clip:
        w.add(f, 10)
    data = w.finish()
    assert sum(f["delay"] for f in parse_gif(data)["frames"]) == 3000


# ---------------------------------------------------------------- the recorder

def test_recorder_samples_the_panel_on_the_clock():
    clock = SimClock()
    rec = GifRecorder(None, 1, clock, fps=10)
    pics = [bytes([i]) * BUF_LEN for i in range(4)]
    clock.advance(50000)
    rec(pics[0])                    # t = 0.05 s: the clip starts here
    clock.advance(250000)
    rec(pics[1])                    # 0.30 s: samples at 0.05, 0.15, 0.25 show pics[0]
    clock.advance(20000)
    rec(pics[2])                    # 0.32 s: never sampled (at 0.35 pics[3] is up)
    clock.advance(10000)
    rec(pics[3])                    # 0.33 s
    clock.advance(300000)
    rec.close()                     # 0.63 s: 6 samples in all, 0.6 s
    frames = [(buf[0], d) for buf, d in rec.writer.frames]
    assert frames == [(0, 30), (3, 30)]
    # the last sample shows the last picture even when it came just before the end
    clock = SimClock()
    rec = GifRecorder(None, 1, clock, fps=30)
    rec(pics[0])
    clock.advance(1000000)
    rec(pics[1])
    rec.close()
    frames = [(buf[0], d) for buf, d in rec.writer.frames]
    assert frames == [(0, 97), (1, 3)] and sum(d for _, d in frames) == 100


def test_recorder_with_one_frame_and_with_none(tmp_path):
    clock = SimClock()
    rec = GifRecorder(str(tmp_path / "a.gif"), 1, clock)
    rec.close()
    assert rec.save() is False and not (tmp_path / "a.gif").exists()
    rec = GifRecorder(str(tmp_path / "a.gif"), 1, clock)
    rec(bytes(BUF_LEN))
    rec.close()
    assert rec.save() is True
    assert [f["delay"] for f in parse_gif((tmp_path / "a.gif").read_bytes())["frames"]] == [10]


# ---------------------------------------------------------------- the command line

def test_cli_headless_gif_is_a_valid_clip_ending_on_the_last_frame(tmp_path):
    path = tmp_path / "out.gif"
    out = io.StringIO()
    assert cli.main(["--headless", "--p0", "hard", "--p1", "easy", "--seed", "3",
                     "--frames", "300", "--gif", str(path), "--print-state"],
                    stdout=out) == 0
    gif = parse_gif(path.read_bytes())
    assert gif["trailer"] and gif["loop"] == 0 and gif["size"] == (384, 192)
    # 300 device frames of 33.3 ms: a 10 s clip at 10 samples a second.
    assert sum(f["delay"] for f in gif["frames"]) == 1000
    assert 10 < len(gif["frames"]) <= 100
    pictures = composite(gif)
    frame_sha = re.search(r"frame ([0-9a-f]{40})", out.getvalue()).group(1)
    import hashlib
    assert hashlib.sha1(to_vlsb(unscale(pictures[-1], 3))).hexdigest() == frame_sha
    first = pygame.image.load(str(path))
    assert pygame.image.tobytes(_rgb24(first), "RGB") == rgb_of(pictures[0])


def test_cli_gif_fps_and_scale(tmp_path):
    path = tmp_path / "fast.gif"
    assert cli.main(["--headless", "--p0", "easy", "--p1", "easy", "--frames", "90",
                     "--gif", str(path), "--gif-fps", "30", "--scale", "1"],
                    stdout=io.StringIO()) == 0
    gif = parse_gif(path.read_bytes())
    assert gif["size"] == (128, 64)
    assert sum(f["delay"] for f in gif["frames"]) == 297     # 89 x 33.3 ms


@pytest.mark.parametrize("argv", [
    ["--headless", "--gif", "/no/such/dir/out.gif"],
    ["--headless", "--gif", "."],
    ["--headless", "--gif", "x.gif", "--gif-fps", "0"],
    ["--headless", "--gif", "x.gif", "--gif-fps", "51"],
])
def test_cli_bad_gif_path_or_rate_exit_2_with_one_line(argv, capsys):
    assert cli.main(argv) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.count("\n") == 1 and cap.err.startswith("desktop_emulator: error: ")
