"""A whole linked game (R43) between two apps in one process, over a simulated cable
(host/simlink.py: simulated clocks, the line's timing, faults): both devices end with
the same recording, whatever the cable does."""
import pytest

from desktop_emulator import framebuf
from firmware import house
from firmware.link import face
from firmware.link.frame import encode
from firmware.link.link import LINKED, INCOMPATIBLE, VERSION
from firmware.link.play import LOBBY, PLAYING, _AHEAD as AHEAD
from host.simlink import LinkedPair, start_linked_game, authority
from host.upright import upright, layout_of
from host.rig import BotHand
from shared_rules.bot import moves

GAME_MS = 3000000         # simulated: far more than any game takes


def over(pair):
    return all(d.app.screen_name() == "over" for d in pair.devs)


def finish(pair):
    pair.run_until(lambda: over(pair), GAME_MS)
    pair.step_ms(2000)                                    # what is still on the line arrives
    a, b = pair.devs
    assert a.app.game.winner == b.app.game.winner
    assert a.app.replay == b.app.replay                  # the same transcript, R40
    assert len(list(a.app.replay.records)) > 200
    assert a.app.linkplay.diverged == -1 and b.app.linkplay.diverged == -1
    return a, b


def test_r43_a_whole_linked_game_ends_with_the_same_transcript_on_both():
    pair = LinkedPair(framebuf, seed=1)
    host = start_linked_game(pair, seed=1)
    kinds = set()                     # what the guest sends: its presses and stamps only
    recv = host.app.linkplay.link.recv

    def seen():
        m = recv()
        if m is not None:
            kinds.add(m[0])
        return m

    host.app.linkplay.link.recv = seen
    a, b = finish(pair)
    guest = b if host is a else a
    assert kinds == {ord("P"), ord("T")}
    assert host.app.linkplay.me == 0 and guest.app.linkplay.me == 1
    assert host.app.linkplay.presses_in > 50              # the guest played
    assert host.app.linkplay.late == 0                    # every press before its settling
    # The wait for the guest's presses: a frame of each loop and the line, no more.
    assert 0 < host.app.linkplay.lag_max_us < 3 * 33333
    assert host.app.table.arbiter.window_us == 2000


@pytest.mark.slow
@pytest.mark.parametrize("ppm", [(-200, 200), (200, -200)])
def test_r43_drifting_clocks_and_a_noisy_cable_change_nothing(ppm):
    pair = LinkedPair(framebuf, seed=2, ppm=ppm)
    pair.wire.drop_per_k = 3
    pair.wire.flip_per_k = 3
    start_linked_game(pair, seed=2)
    a, b = finish(pair)
    assert pair.wire.dropped > 0 and pair.wire.flipped > 0
    assert a.app.linkplay.link.resends + b.app.linkplay.link.resends > 0
    # Resent presses came late, but the game's time waited for them (R43).
    assert authority(pair).app.linkplay.late == 0


def test_r43_cable_cut_both_say_link_lost_within_a_second_and_resume_where_it_was():
    pair = LinkedPair(framebuf, seed=3)
    start_linked_game(pair, seed=3)
    pair.step_ms(15000)
    a, b = pair.devs
    pair.wire.cut(pair.wire.now, 2000)
    ms = pair.run_until(lambda: all(d.app.linkplay._lost_shown for d in pair.devs), 1000)
    assert ms < 1000
    for d in pair.devs:
        assert not d.app.linkplay.guest_playing()         # nobody to send a press to
        assert bytes(d.disp.panel) != bytes(1024)
        assert _has_text_band(d.disp.panel)               # the LINK LOST box is drawn
    snaps = [d.app.game.snapshot() for d in pair.devs]
    frames = [len(list(d.app.replay.records)) for d in pair.devs]
    pair.step_ms(1000)                                    # still cut: nothing moves
    assert [d.app.game.snapshot() for d in pair.devs] == snaps
    assert [len(list(d.app.replay.records)) for d in pair.devs] == frames
    pair.run_until(lambda: not any(d.app.linkplay._lost_shown for d in pair.devs), 3000)
    finish(pair)


def _has_text_band(panel):
    # The banner's frame: a full row of lit pixels across x 8..119 at row 18.
    page, bit = divmod(18, 8)
    return all(panel[page * 128 + x] >> bit & 1 for x in range(8, 120))


def restart_mid_game(who, seed=4):
    """A linked game 20 s in, then one handheld (`who`: "guest" or the "authority")
    restarted, its bot's hand taken off -> (pair, the fresh device, the other, the
    player it was)."""
    pair = LinkedPair(framebuf, seed=seed)
    host = start_linked_game(pair, seed=seed)
    pair.step_ms(20000)
    k = pair.devs.index(host)
    if who == "guest":
        k = 1 - k
    me = pair.devs[k].app.linkplay.me
    pair.hands = [h for h in pair.hands if h.app is not pair.devs[k].app]
    return pair, pair.restart(k), pair.devs[1 - k], me


@pytest.mark.slow
@pytest.mark.parametrize("who", ["guest", "authority"])
def test_r43_a_device_that_restarts_rejoins_the_game_where_it_was(who):
    pair, fresh, other, me = restart_mid_game(who)
    assert fresh.app.linkplay is None and fresh.app.screen_name() == "title"
    # The other's HELLO takes the fresh menu into link play.
    assert len(other.app.linkplay.log) > 4 * AHEAD
    queued = []                       # the kept stream goes to the link a window at a time

    def caught_up():
        queued.append(other.app.linkplay.link.pending())
        return (fresh.app.linkplay is not None and fresh.app.linkplay.mode == PLAYING and
                len(fresh.app.linkplay.log) == len(other.app.linkplay.log) and
                not other.app.linkplay.link.pending())

    pair.run_until(caught_up, 20000)
    assert AHEAD <= max(queued) <= AHEAD + 1
    assert fresh.app.linkplay.me == me                    # the same player as before
    assert fresh.app.game.snapshot() == other.app.game.snapshot()
    assert authority(pair) is other     # the one that held the game (a takeover, R43)
    from host.rig import BotHand
    pair.hands.append(BotHand(fresh.app, me, "hard", 99, fresh.pad))
    finish(pair)


def test_r43_a_restarted_authority_whose_start_number_comes_out_the_same_hands_over(
        monkeypatch):
    # A reboot takes as long each time, so the restarted device's clock can give the very
    # start number its peer still knows it by (the emulated Picos did). The peer must not
    # take it for the old session going on: both would then be followers, linked, and
    # the game would wait for an authority that is not there.
    import firmware.link.link as link_module
    pair, fresh, other, me = restart_mid_game("authority")
    remembered = other.app.linkplay.link.peer_nonce
    monkeypatch.setattr(link_module, "start_number", lambda now: remembered)
    both_followers = []

    def caught_up():
        lps = [d.app.linkplay for d in pair.devs]
        if all(lp is not None and lp.link.state == LINKED and not lp.link.authority
               for lp in lps):
            both_followers.append(pair.devs[0].clock.now)
        return (fresh.app.linkplay is not None and fresh.app.linkplay.mode == PLAYING and
                len(fresh.app.linkplay.log) == len(other.app.linkplay.log) and
                not other.app.linkplay.link.pending())

    pair.run_until(caught_up, 20000)
    assert fresh.app.linkplay.link.nonce != remembered
    assert both_followers == []
    assert authority(pair) is other
    assert fresh.app.linkplay.me == me
    assert fresh.app.game.snapshot() == other.app.game.snapshot()


def test_r43_an_incompatible_peer_is_named_and_the_device_plays_alone():
    pair = LinkedPair(framebuf, seed=5)
    a, b = pair.devs
    a.app.link_play(a.clock.now)
    b.app.link_play(b.clock.now)
    b.app.linkplay.link.version = 1                       # the protocol's first version
    pair.step_ms(1000)
    assert a.app.linkplay.link.state == INCOMPATIBLE
    assert a.app.linkplay.lines()[:2] == ("OTHER VERSION 1", "PLAYING ALONE")
    a.inp.press(a.clock.now + 1000, 0, "A", 40000)        # A: back to the menu
    pair.step_ms(200)
    assert a.app.linkplay is None and a.app.screen_name() == "title"
    a.app.menu_items()
    a.inp.press(a.clock.now + 1000, 0, "B", 40000)        # START: a game on one device
    pair.step_ms(200)
    assert a.app.screen_name() == "game"


@pytest.mark.slow
def test_garbage_a_future_version_and_a_flood_mid_game_crash_neither_side():
    pair = LinkedPair(framebuf, seed=6)
    start_linked_game(pair, seed=6)
    pair.step_ms(10000)
    junk = bytes((x * 193 + 5) & 0xFF for x in range(4000))
    for k in (0, 1):
        pair.wire.inject(k, junk + b"\x00")
        pair.wire.inject(k, encode(9, 5, 0, 0, b"a frame from the future"))
        pair.wire.inject(k, encode(VERSION, 5, 200, 0, b"E\x00\x00"))  # out of sequence
    pair.step_ms(2000)
    for k in (0, 1):
        pair.wire.inject(k, bytes(20000))                 # a stuck line: zeros
    a, b = finish(pair)
    assert a.app.linkplay.link.foreign + b.app.linkplay.link.foreign >= 2


# A deal (the seed the emulated Pico dealt as host in tests/pico/test_pico_link_mixed.py)
# in which player 1 has no move: none at the start, none after player 0's first plays,
# until a stall (R22) deals new cards.
NO_MOVE_FOR_PLAYER_1 = 1813924


def test_r43_the_guests_cpu_waits_out_a_deal_without_a_move_then_plays_to_the_host():
    """The guest's CPU (a BotHand on the guest's own pad, its clock ahead of the host's)
    presses nothing while its player has no move, however long; once it has one (here
    the stall's "Spit!", R23, then plays) it presses, and the host's arbiter takes it."""
    pair = LinkedPair(framebuf, seed=14, edges=True, starts=(700000000, 1000))
    for d in pair.devs:
        d.app.link_play(d.clock.now)
    pair.run_until(lambda: all(d.app.linkplay.link.state == LINKED for d in pair.devs), 10000)
    host = authority(pair)
    guest = pair.devs[1 - pair.devs.index(host)]
    pair.run_until(lambda: host.app.linkplay.link.sync.synced(), 10000)
    host.app.linkplay.start(host.clock.now, seed=NO_MOVE_FOR_PLAYER_1)
    pair.run_until(lambda: guest.app.screen_name() == "game", 1000)
    for d in pair.devs:
        d.inp.press(d.clock.now + 1000, 0, "B", 40000)        # R23: "Spit!" on both
    pair.run_until(lambda: all(d.app.game.phase == "play" for d in pair.devs), 1000)
    me = guest.app.linkplay.me
    g = guest.app.game
    dealt = g.stock_count(me)
    assert me == 1 and not any(moves(g, me, c) for c in range(5))
    cpu = BotHand(guest.app, me, "hard", 5, guest.pad)
    pair.hands += [cpu, BotHand(host.app, 1 - me, "hard", 4, host.pad)]
    heard = host.app.linkplay.presses_in
    cursor = guest.app.table.pads[me]
    waited = pair.run_until(lambda: g.phase != "play" or moves(g, me, cursor.cursor), 10000)
    assert waited > 600 and cpu.presses == 0      # nothing to press, for over 600 ms
    # Its presses cross to the host's arbiter, and its cards go onto the piles there.
    pair.run_until(lambda: host.app.game.stock_count(me) < dealt, 3000)
    assert cpu.presses > 0 and host.app.linkplay.presses_in > heard
    pair.hands = []
    pair.run_until(lambda: host.app.linkplay.link.pending() == 0, 1000)
    pair.step_ms(300)
    assert guest.app.game.snapshot() == host.app.game.snapshot()


def facing(src, screen_name):
    """What player 1's device must show of the app's whole picture `src`: menus as
    they are; a table or a half-screen turned round (their own side at the bottom),
    then the top parts turned back so they read, as a side-by-side host shows them."""
    layout = layout_of(screen_name)
    if layout == 0:
        return bytes(src)
    turned = bytearray(1024)
    for i in range(1024):
        turned[1023 - i] = face.REVERSED_BITS[src[i]]
    return bytes(upright(bytes(turned), layout))


def test_each_device_shows_its_own_player_at_the_bottom_upright():
    pair = LinkedPair(framebuf, seed=7)
    host = start_linked_game(pair, seed=7)
    pair.step_ms(3000)
    guest = pair.devs[1 - pair.devs.index(host)]
    # The authority (player 0) shows the app's picture as a shared handheld would.
    assert bytes(host.disp.panel) == bytes(host.disp.buf)
    # Player 1's device: the app's picture turned round, the top parts turned back:
    # the same as a side-by-side host (host/upright.py) shows after a half turn.
    src = bytes(guest.app.linkplay._facing.buf)
    expected = facing(src, "game")
    assert bytes(guest.disp.panel) == bytes(expected)
    assert guest.disp.panel != host.disp.panel


def test_the_lobby_tells_the_link_health_and_only_the_authority_starts():
    pair = LinkedPair(framebuf, seed=8)
    for d in pair.devs:
        d.app.link_play(d.clock.now)
    pair.step_ms(2000)
    host = authority(pair)
    guest = pair.devs[1 - pair.devs.index(host)]
    l = host.app.linkplay.lines()
    assert l[0].startswith("RTT ") and l[0].endswith(" MS") and l[3] == "B: START  A: BACK"
    bound = host.app.linkplay.link.sync.bound_at(host.clock.now)
    assert l[1] == "CLOCKS +-%d US" % bound and 0 < bound < 2000
    assert l[2].startswith("PEER 000") and l[2].endswith("RESENT 0")
    assert guest.app.linkplay.lines()[3] == "WAITING FOR HOST"
    guest.inp.press(guest.clock.now + 1000, 0, "B", 40000)
    pair.step_ms(500)
    assert [d.app.linkplay.mode for d in pair.devs] == [LOBBY, LOBBY]


def test_the_menu_joins_a_calling_peer_but_not_garbage_nor_one_it_left():
    pair = LinkedPair(framebuf, seed=11)
    a, b = pair.devs
    for k in (0, 1):
        pair.wire.inject(k, bytes((x * 71 + 3) & 0xFF for x in range(3000)) + b"\x00")
    pair.step_ms(1000)                                    # a floating RX: noise
    assert a.app.linkplay is None and b.app.linkplay is None
    b.app.link_play(b.clock.now)                          # b's player chooses LINK PLAY
    pair.step_ms(1000)
    assert a.app.linkplay is not None                     # a's menu answered the call
    pair.step_ms(500)
    assert a.app.linkplay.link.state == LINKED
    a.inp.press(a.clock.now + 1000, 0, "A", 40000)        # a's player says no
    pair.step_ms(3000)
    assert a.app.linkplay is None and a.app.screen_name() == "title"
    # b restarts its link play (a new start number): a joins again.
    b.app.linkplay.close(b.clock.now)
    b.app.link_play(b.clock.now)
    pair.step_ms(1000)
    assert a.app.linkplay is not None


def test_the_menu_offers_link_play_only_with_a_cable_port():
    pair = LinkedPair(framebuf, seed=9)
    app = pair.devs[0].app
    assert "LINK PLAY" in [app.menu_text(i) for i in app.menu_items()]
    from host.rig import Rig
    assert "LINK PLAY" not in [Rig(framebuf).app.menu_text(i)
                               for i in Rig(framebuf).app.menu_items()]


def test_r43_a_divergence_is_caught_at_the_round_end_and_said_on_both():
    pair = LinkedPair(framebuf, seed=10)
    host = start_linked_game(pair, seed=10)
    guest = pair.devs[1 - pair.devs.index(host)]
    pair.step_ms(2000)
    rnd = guest.app.game.round
    guest.app.game.tie_priority ^= 1          # the guest's game is no longer the host's
    pair.run_until(lambda: host.app.linkplay.diverged >= 0, GAME_MS)
    assert guest.app.linkplay.diverged == host.app.linkplay.diverged > rnd   # the next deal
    pair.step_ms(100)
    for d in pair.devs:
        assert _has_text_band(d.disp.panel)   # OUT OF STEP on both screens
    snap = host.app.game.snapshot()
    pair.step_ms(2000)
    assert host.app.game.snapshot() == snap   # no more of that game is played
    host.inp.press(host.clock.now + 1000, 0, "A", 40000)
    pair.step_ms(200)
    assert host.app.linkplay is None and host.app.screen_name() == "title"


def test_a_peer_gone_for_good_can_be_left_after_a_while_but_not_by_a_stray_press():
    pair = LinkedPair(framebuf, seed=12)
    host = start_linked_game(pair, seed=12)
    guest = pair.devs[1 - pair.devs.index(host)]
    pair.step_ms(3000)
    pair.hands = []
    pair.wire.unplugged = True
    pair.run_until(lambda: guest.app.linkplay._lost_shown, 1000)
    guest.inp.press(guest.clock.now + 1000, 0, "A", 40000)    # in the heat of the game
    pair.step_ms(1000)
    assert guest.app.linkplay is not None
    pair.step_ms(4500)
    guest.inp.press(guest.clock.now + 1000, 0, "A", 40000)
    pair.step_ms(300)
    assert guest.app.linkplay is None and guest.app.screen_name() == "title"
    assert host.app.linkplay is not None and host.app.linkplay._lost_shown


def test_the_lobby_says_nothing_comes_or_only_noise_comes():
    pair = LinkedPair(framebuf, seed=13)
    a = pair.devs[0]
    pair.wire.unplugged = True             # nothing reaches the other (TX wired to TX)
    a.app.link_play(a.clock.now)
    pair.step_ms(1000)
    assert a.app.linkplay.lines()[:3] == ("LOOKING FOR PEER", "CONNECT THE CABLE",
                                         "TX TO RX, RX TO TX")
    pair.wire.inject(0, bytes((x * 89 + 1) & 0xFF for x in range(2000)))   # floating RX
    pair.step_ms(200)
    l = a.app.linkplay.lines()
    assert l[0] == "NOISE ON THE CABLE" and l[1].endswith(" BAD FRAMES")
    assert int(l[1].split()[0]) > 0


def _cable_test_pair(seed, target=1, levels=(3, 3), **kw):
    """Two handhelds whose house rules say link_player = cpu (the cable test) and, on
    both, points to `target`; chosen LINK PLAY and linked, the host dealt with B. ->
    (pair, host device)."""
    pair = LinkedPair(framebuf, seed=seed, **kw)
    words = ("person", "cpu easy", "cpu normal", "cpu hard")
    for d, level in zip(pair.devs, levels):
        rules, err = house.load(None, "rules = points\ntarget = %d\nlink_player = %s\n"
                                % (target, words[level]))
        assert err is None
        d.app.link_cpu = rules["link_cpu"]
        d.app.settings["points"] = rules["points"]
        d.app.target = rules["target"]
        d.app.link_play(d.clock.now)
    pair.run_until(lambda: all(d.app.linkplay.link.state == LINKED for d in pair.devs), 10000)
    host = authority(pair)
    pair.run_until(lambda: host.app.linkplay.link.sync.synced(), 10000)
    host.inp.press(host.clock.now + 1000, 0, "B", 40000)
    pair.run_until(lambda: all(d.app.screen_name() == "game" for d in pair.devs), 10000)
    return pair, host


def test_r43_the_cable_test_the_cpu_plays_each_handhelds_player_a_whole_game():
    pair, host = _cable_test_pair(seed=11)
    a, b = finish(pair)                       # nobody pressed a button after the deal
    guest = b if host is a else a
    # The host's rules on both: points to 1, so one round ends the game (R37, R42).
    for d in (a, b):
        assert d.app.game.rules.target == 1 and d.app.game.rules.points
        assert d.app.game.round == 1 and max(d.app.game.scores) >= 1
    # The guest's CPU pressed on the guest: its presses crossed the cable, stamped by
    # the guest's clock, to the host's arbiter, in time for it (R43).
    assert host.app.linkplay.presses_in > 20
    assert host.app.linkplay.late == 0
    players = [r[2] for r in host.app.replay.replay().records if r[0] == "button"]
    assert players.count(0) > 20 and players.count(1) > 20


def test_the_cable_test_takes_the_pad_from_the_buttons_during_play():
    pair, host = _cable_test_pair(seed=12)
    guest = [d for d in pair.devs if d is not host][0]
    pair.step_ms(3000)
    # A person's presses on a cable-test handheld's pad change nothing in play (the
    # CPU's pad, as on one handheld); the game goes on and ends the same on both.
    stamps = []
    for k in range(6):
        t = (host.clock.now + 1001 + k * 90017) & 0x3FFFFFFF
        stamps.append(t)
        host.inp.press(t, 0, "A", 40000)
        guest.inp.press(guest.clock.now + 1001 + k * 90017, 0, "A", 40000)
    a, b = finish(pair)
    assert a.app.replay == b.app.replay
    assert host.app.linkplay.base == 0        # no link loss: game time is host time
    recorded = [r[1] for r in host.app.replay.replay().records if r[0] == "button"]
    assert len(recorded) > 40 and not set(stamps) & set(recorded)


def test_r37_a_linked_game_plays_to_the_hosts_target():
    # The host's house rules set the target; the guest's own is another. Both play to
    # the host's (the start of the game carries it, as it carries the rules).
    pair = LinkedPair(framebuf, seed=13)
    pair.devs[0].app.target = 7
    pair.devs[1].app.target = 7
    for d in pair.devs:
        d.app.settings["points"] = 1
    host = start_linked_game(pair, seed=13)
    guest = [d for d in pair.devs if d is not host][0]
    assert host.app.game.rules.target == 7 and guest.app.game.rules.target == 7
    guest.app.target = 100
    a, b = finish(pair)
    assert a.app.game.rules.target == b.app.game.rules.target == 7


def test_a_start_record_cut_short_before_its_target_still_starts_a_game():
    # A peer's "S" record that says a target follows but ends first: the default
    # target, no crash (the stream's records are read with their lengths checked).
    pair = LinkedPair(framebuf, seed=14)
    for d in pair.devs:
        d.app.link_play(d.clock.now)
    pair.run_until(lambda: all(d.app.linkplay.link.state == LINKED for d in pair.devs), 10000)
    guest = [d for d in pair.devs if d is not authority(pair)][0]
    lp = guest.app.linkplay
    m = bytearray(b"S") + bytes(4) + bytes((0, 0, 0, 9)) + bytes((5, 0)) + b"\x00"
    lp._apply(bytes(m), guest.clock.now)
    assert guest.app.game.rules.target == 100 and guest.app.game.rules.points


@pytest.mark.parametrize("who", ["guest", "authority"])
def test_r43_the_cable_test_survives_noise_drift_a_cut_and_a_restart(who):
    pair, host = _cable_test_pair(seed=15, ppm=(0, 200))
    pair.wire.drop_per_k = 10
    pair.wire.flip_per_k = 1
    pair.step_ms(1500)
    pair.wire.cut(pair.wire.now, 1500)
    pair.run_until(lambda: all(d.app.linkplay._lost_shown for d in pair.devs), 1000)
    pair.run_until(lambda: not any(d.app.linkplay._lost_shown for d in pair.devs), 3000)
    pair.step_ms(1000)
    assert not any(d.app.screen_name() == "over" for d in pair.devs)
    k = pair.devs.index(host)
    if who == "guest":
        k = 1 - k
    fresh = pair.restart(k)
    fresh.app.link_cpu = 3            # its house rules, read again at power-up
    a, b = finish(pair)
    assert pair.wire.dropped > 10 and pair.wire.flipped > 0
    assert a.app.game.round == 1 and a.app.game.rules.target == 1


class _FlatPanel:
    """A display port with no buffer of its own to share and no show_spans: only
    fb and show() (the whole picture)."""

    def __init__(self):
        self.pixels = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.pixels, 128, 64, framebuf.MONO_VLSB)
        self.shown = None

    def show(self):
        self.shown = bytes(self.pixels)


@pytest.mark.parametrize("screens", [("game", "summary", "title", "game"),
                                     ("attract", "over", "pause", "rematch")])
def test_player_1s_device_turns_and_sends_only_what_the_app_redrew(screens):
    """The guest's display turns the app's redrawn spans only (not the whole 1 KB a
    frame): after every show the panel is what facing() says of the whole picture,
    and the spans it sent held every byte that changed (a checking Panel counts any
    changed byte outside them). A change of layout (another screen) turns it all."""
    from host.ports import Panel
    from shared_rules.rng import Rng
    panel = Panel(framebuf, check=True)
    flat = _FlatPanel()
    name = [screens[0]]
    ports = [face.FacingDisplay(panel, lambda: name[0]),
             face.FacingDisplay(flat, lambda: name[0])]
    rng = Rng(43)
    picture = bytearray(1024)
    for fd in ports:
        fd.show()
    for step in range(120):
        name[0] = screens[(step // 30) % len(screens)]
        spans = bytearray(16)
        for p in range(8):
            spans[2 * p], spans[2 * p + 1] = 255, 0
        for _ in range(1 + rng.below(3)):
            p = rng.below(8)
            x0 = rng.below(128)
            x1 = min(127, x0 + rng.below(40))
            for x in range(x0, x1 + 1):
                picture[p * 128 + x] = rng.below(256)
            spans[2 * p] = min(spans[2 * p], x0)
            spans[2 * p + 1] = max(spans[2 * p + 1], x1)
        for fd in ports:
            fd.buf[:] = picture
            fd.show_spans(spans)
        want = bytes(facing(bytes(picture), name[0]))
        assert bytes(panel.panel) == want, (step, name[0])
        assert flat.shown == want, (step, name[0])
    assert panel.span_errors == 0
    # Most shows sent a page or two, not the whole screen.
    assert sum(panel.last_widths) < 200


def test_r43_news_on_the_link_is_a_guests_press_or_the_hosts_frames_in_a_game():
    """What makes the device's loop step at once (firmware/main.py): on the authority,
    a message with a press of the follower's in it, or the "T" it asked for because a
    press of its own waits for it (not the follower's every-frame "T" otherwise); on the
    follower, anything of the game's, the authority's question too; in the lobby,
    nothing."""
    pair = LinkedPair(framebuf, seed=12)
    for d in pair.devs:
        d.app.link_play(d.clock.now)
    pair.run_until(lambda: all(d.app.linkplay.link.state == LINKED for d in pair.devs), 10000)
    host = authority(pair)
    guest = pair.devs[1 - pair.devs.index(host)]
    h, g = host.app.linkplay, guest.app.linkplay
    t_only = b"T\x00\x00\x10\x00"
    press = b"P\x00\x00\x0f\x00\x01\x01" + t_only
    h.link.inbox[:] = [press]
    g.link.inbox[:] = [b"F\x00\x00\x10\x00\x00\x11"]
    assert (h.mode, g.mode) == (LOBBY, LOBBY) and not h.news() and not g.news()
    assert not h.guest_playing() and not g.guest_playing()     # (the loop's press path)
    h.link.inbox[:] = []
    g.link.inbox[:] = []
    start_linked_game(pair, seed=12)
    pair.hands = []
    assert (h.mode, g.mode) == (PLAYING, PLAYING)
    assert g.guest_playing() and not h.guest_playing()
    h.link.inbox[:] = []
    g.link.inbox[:] = []
    assert not h.news() and not g.news()
    pair.run_until(lambda: not h._held and not h._asked, 2000)   # the deal's B is decided
    h.link.inbox[:] = [t_only, t_only]
    assert not h.news()
    h.link.inbox[:] = [t_only, press]
    assert h.news()
    g.link.inbox[:] = [b"F\x00\x00\x10\x00\x00\x11"]
    assert g.news()
    g.link.inbox[:] = []
    h.link.inbox[:] = []
    # The host's own press, past the guest's last word: held, and the guest is asked.
    host.inp.press(host.clock.now, 0, "A", 40000)
    pair.wire.now += 1000
    host.app.step(host.clock.now)
    assert h._held and not h.news()
    for _ in range(10):                        # the question crosses the cable
        pair.wire.now += 1000
        g.link.poll(guest.clock.now)
    assert b"Q" in g.link.inbox and g.news()
    kept = len(g.log) + len([m for m in g.link.inbox if m != b"Q" and m[:1] != b"H"])
    guest.app.step(guest.clock.now)            # answered with its T; the Q is not kept
    assert g.link.inbox == [] and len(g.log) == kept
    for _ in range(10):
        pair.wire.now += 1000
        h.link.poll(host.clock.now)
    assert h.link.inbox and h.link.inbox[-1][:1] == b"T" and h.news()
    host.app.step(host.clock.now)
    assert not h._held and not h._asked and not h.news()


def test_r43_a_game_standing_on_a_screen_keeps_nothing_more_but_the_guests_clock_goes_on():
    """The kept stream (for a peer that rejoins) grows with what is played, not with the
    time: the frames sent only so that the guest's clock goes on are not kept."""
    pair, host = _cable_test_pair(seed=11)
    pair.run_until(lambda: over(pair), GAME_MS)
    pair.step_ms(2000)
    guest = [d for d in pair.devs if d is not host][0]
    kept = [(d.app.linkplay.log.count, d.app.linkplay.log.nbytes) for d in pair.devs]
    assert kept[0] == kept[1] and kept[0][0] > 20
    t0 = guest.app.linkplay.game_t
    pair.step_ms(60000)                                   # a minute on the final screen
    assert [(d.app.linkplay.log.count, d.app.linkplay.log.nbytes) for d in pair.devs] == kept
    assert 59800000 <= (guest.app.linkplay.game_t - t0) & 0x3FFFFFFF <= 60200000
    assert guest.app.now == guest.app.linkplay.game_t     # stepped at the host's time


def test_a_link_play_step_out_of_heap_is_said_and_the_game_goes_on():
    """A MemoryError in link play's own step (a message, a block of the kept stream)
    does not leave the app's step: collected, LOW MEMORY said, the next frame plays."""
    pair = LinkedPair(framebuf, seed=7)
    host = start_linked_game(pair, seed=7)
    pair.step_ms(3000)
    lp = host.app.linkplay
    local = lp._local                 # the step's first allocation of its own
    fails = [2]

    def local_out_of_heap(now):
        if fails[0]:
            fails[0] -= 1
            raise MemoryError("memory allocation failed")
        return local(now)

    lp._local = local_out_of_heap
    frames = host.app.frames
    pair.step_ms(200)
    assert fails[0] == 0 and host.app.mem_errors == 2
    assert host.app.frames > frames + 3                   # the frames after it played
    assert host.app.note == "LOW MEMORY"
    lp._local = local
    finish(pair)


def test_r43_a_stream_spilled_to_flash_between_rounds_still_brings_a_restarted_guest_back(tmp_path):
    """The kept stream goes to flash between rounds (the heap keeps the round in play);
    a guest that restarts later gets it all back, read from the file a block at a time."""
    from firmware.hw.storage import FileStorage
    pair = LinkedPair(framebuf, seed=4)
    for k, d in enumerate(pair.devs):
        d.app.ports.storage = FileStorage(str(tmp_path / ("d%d.json" % k)))
    host = start_linked_game(pair, seed=4)
    k = 1 - pair.devs.index(host)
    pair.run_until(lambda: host.app.linkplay.log._gone >= 2 and
                   host.app.game.phase == "play", 600000)
    kept = host.app.linkplay.log
    assert len(kept._blocks) < kept._gone                 # most of it on flash
    assert pair.devs[k].app.linkplay.log._gone == kept._gone
    me = pair.devs[k].app.linkplay.me
    pair.hands = [h for h in pair.hands if h.app is not pair.devs[k].app]
    fresh = pair.restart(k)
    pair.run_until(lambda: fresh.app.linkplay is not None and
                   fresh.app.linkplay.mode == PLAYING and
                   len(fresh.app.linkplay.log) == len(host.app.linkplay.log) and
                   not host.app.linkplay.link.pending(), 60000)
    assert kept.read_errors == 0 and kept._back_k >= 0    # read back from the file
    assert fresh.app.game.snapshot() == host.app.game.snapshot()
    pair.hands.append(BotHand(fresh.app, me, "hard", 99, fresh.pad))
    finish(pair)


def test_r43_the_host_sends_a_frames_outcome_before_it_draws_its_own_picture():
    """The guest's copy of a decision need not wait for the host's drawing and its
    panel's transfer: in every host step that both sends frames and shows a picture,
    the frames go first."""
    pair = LinkedPair(framebuf, seed=2)
    host = start_linked_game(pair, seed=2)
    order = []
    lp = host.app.linkplay
    send, disp, step = lp.link.send, host.app.ports.display, host.app.step

    def sent(m):
        order.append("F" if m[:1] in (b"S", b"E", b"F", b"D") else "-")
        return send(m)

    def shown(f):
        def show(*a):
            order.append("show")
            return f(*a)
        return show

    def stepped(now):
        order.append("step")
        return step(now)

    lp.link.send = sent
    disp.show_spans = shown(disp.show_spans)
    disp.show = shown(disp.show)
    host.app.step = stepped
    pair.step_ms(8000)
    steps = []
    for x in order:
        if x == "step":
            steps.append([])
        elif steps:
            steps[-1].append(x)
    both = [s for s in steps if "F" in s and "show" in s]
    assert len(both) > 20
    for s in both:
        assert s.index("F") < s.index("show"), s


def test_r43_the_guest_finishes_a_spread_redraw_between_the_hosts_frames():
    # A new table is drawn over several steps (view.DRAW_BUDGET). The guest steps when
    # the host's frames come; its loop steps again 2 ms on while the view is behind,
    # and those steps finish the picture themselves (on the emulated Pico the guest's
    # view stayed behind for ~90 steps, its loop stepping every 2 ms and never finding
    # room to collect, until the host's frames brought the rest).
    from firmware import view as V
    pair = LinkedPair(framebuf, seed=3)
    for d in pair.devs:
        d.app.link_play(d.clock.now)
    pair.run_until(lambda: all(d.app.linkplay.link.state == LINKED for d in pair.devs), 10000)
    host = authority(pair)
    pair.run_until(lambda: host.app.linkplay.link.sync.synced(), 10000)
    host.inp.press(host.clock.now + 1000, 0, "B", 40000)
    guest = [d for d in pair.devs if d is not host][0]
    app = guest.app
    pair.run_until(lambda: app.view.behind, 10000)
    digest, records = app.game.digest(), len(list(app.replay.records))
    steps = 0
    while app.view.behind and steps < 20:     # the host is not stepped: nothing comes
        pair.wire.now += 2000
        app.step(guest.clock.now)
        steps += 1
    assert not app.view.behind and steps <= 12
    # Drawing only: the game and its transcript are where the host's frames left them.
    assert app.game.digest() == digest and len(list(app.replay.records)) == records
    buf = bytearray(1024)
    ref = V.View(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB))
    ref.budget = 0
    tb = app.table
    ref.game(tb.game, [tb.pads[0].cursor, tb.pads[1].cursor], tb.msgs, tb.slap_bar, None,
             not tb.signalled)
    assert bytes(app.ports.display.buf) == bytes(buf)     # the whole table, as one draw
