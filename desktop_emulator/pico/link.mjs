// Two emulated Picos joined by a link cable (GP0 TX -> the other's GP1 RX, both ways,
// and ground), in one process, driven by Python (desktop_emulator/pico/link.py) over
// JSON lines on stdin/stdout.
//
// Each chip is harness.mjs imported once with its own query string, so each has its own
// module state: every single-chip command works per chip ({"chip": 0|1, ...}).
//
// Time. "True" time is the cable's (the room's) time, in ns. A chip's own clock runs at
// `rate` local ns per true ns (1 + ppm / 1e6: a crystal that is off), so
// local = anchorLocal + rate * (true - anchorTrue). `run` moves BOTH chips forward in
// equal slices of true time, one after the other, so neither is ever more than a slice
// ahead. A byte's start bit leaves the sender one bit time after the CPU wrote it (the
// UART's baud generator; on the chip it is within a bit), so a slice no longer than one
// bit means every bit reaches the other chip before that chip's guest time gets there:
// the receiver sees each edge at its exact time. `late` counts any that were not (it
// stays 0 unless a chip stalled far past a slice, e.g. in a flash erase).
//
// The line (8N1: start bit, 8 data bits LSB first, stop bit; idle high). rp2040js's UART
// has no pins and no bit timing, so this file gives it both: a byte written to UARTDR
// waits for the line, goes out at the sender's baud rate, and each bit edge is driven on
// the receiver's RX pin AND the sender's own TX pin (a pad's input reads what it drives,
// so a PIO state machine on either chip can stamp the edges); the receiver's UART gets
// the byte it samples mid-bit at ITS baud rate (a peer at another baud rate reads
// garbage, as on a real cable), at the middle of its stop bit (see transmit()).
//
// Faults (link_configure): drop (probability a byte is lost on the wire), flip (that one
// bit of it is inverted), seeded; cut [t0, t1] true ns (nothing crosses, RX idles high:
// the pull-up); ppm per chip; loopback (a chip's TX wired to its own RX: the self-test
// plug). A reset of one chip is the single-chip `reset` command.
//
// Outside peer (link_configure {outside: true}): chip 1 is not emulated; the other end
// of the cable is the host's (desktop_emulator/pico/mixed.py: the app engine). What chip
// 0 sends to it is sampled at `outside_baud` (a peer at another rate reads garbage, as
// above) and handed to the host in the replies ("wire": [[true ns the byte is whole,
// byte], ...]); the host's bytes come onto chip 0's RX with `inject`. Nothing is emulated
// past the cable, so slices need not be a bit long.
//
// Replies: {"id", "ok", "t": true ns, "chips": [events of chip 0, events of chip 1],
// "link": counters}; events as harness.mjs gives them (its "t" is the chip's own time).

import { createInterface } from 'node:readline';

const chips = [await import('./harness.mjs?chip=0'), await import('./harness.mjs?chip=1')];

// While neither UART is on, nothing can cross the cable: longer slices cost less. Once
// one is, a slice is at most one bit (and at most sliceNs).
const IDLE_SLICE_NS = 10000;
const DEFAULT_SLICE_NS = 1000;
const OUTSIDE_SLICE_NS = 1e6;      // one chip: a slice only bounds a stop on its output
const TX_START_BITS = 1;
const STOP_SAMPLE_BITS = 9.5;      // the receiver has the byte mid-stop-bit
const BITS = 10;

let trueNs = 0;
let sliceNs = DEFAULT_SLICE_NS;
const link = [0, 1].map((i) => ({
  rate: 1, anchorTrue: 0, anchorLocal: 0,
  txPin: 0, rxPin: 1, uart: 0,
  lineFree: 0,                     // true ns at which this chip's TX line is idle again
}));
let faults = { drop: 0, flip: 0, cut: null, loopback: [false, false] };
let outside = false;
let outsideBaud = 1000000;
let outsideWire = [];                   // [true ns, byte] received by the outside peer
let seed = 1;
const counters = { sent: [0, 0], delivered: [0, 0], dropped: [0, 0], flipped: [0, 0],
  cut: [0, 0], late: [0, 0], overrun: [0, 0], not_listening: [0, 0], misframed: [0, 0] };

// xorshift32: the faults are a function of the seed, run after run.
function random() {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed / 4294967296;
}

const localOf = (i, t) => link[i].anchorLocal + link[i].rate * (t - link[i].anchorTrue);
const trueOf = (i, l) => link[i].anchorTrue + (l - link[i].anchorLocal) / link[i].rate;

function setRate(i, rate) {
  const c = link[i];
  c.anchorLocal = localOf(i, trueNs);
  c.anchorTrue = trueNs;
  c.rate = rate;
}

function uartOf(i) {
  const { chip } = chips[i].state();
  return chip ? chip.uart[link[i].uart] : null;
}

// The baud rate a chip's UART runs at, in bits per TRUE second (0: not set up).
function baudTrue(i) {
  if (outside && i === 1) return outsideBaud;
  const u = uartOf(i);
  if (!u || !u.enabled || !u.baudDivider) return 0;
  return u.rp2040.clkPeri / (u.baudDivider * 16) * link[i].rate;
}

function cutDuring(t0, t1) {
  const c = faults.cut;
  return c !== null && t0 < c[1] && t1 > c[0];
}

// A chip's level change on a pin at true time t (scheduled on that chip's own clock).
function drive(i, pin, level, t) {
  const h = chips[i];
  if (!h.state().chip) return;
  const l = localOf(i, t);
  if (l < h.now() - 0.5) counters.late[i]++;
  h.at(l, (lv) => h.setPin(pin, lv), level);
}

function onByte(from, value) {
  const h = chips[from];
  const baud = baudTrue(from);
  counters.sent[from]++;
  if (!baud) return;
  const wrote = trueOf(from, h.now());
  transmit(from, faults.loopback[from] ? from : 1 - from, value, wrote, 1e9 / baud, true);
}

// One byte on the wire from `from`'s side to `to`'s RX, written at true time `wrote`,
// `bit` true ns a bit; ownPad: the sender's TX pin shows it too (false for bytes the host
// injects, which no chip sent).
function transmit(from, to, value, wrote, bit, ownPad) {
  const start = Math.max(wrote + TX_START_BITS * bit, link[from].lineFree);
  link[from].lineFree = start + BITS * bit;
  const frame = (0x200 | (value << 1)) >>> 0;     // stop(1) data(8, LSB first) start(0)
  let prev = 1;
  if (ownPad) {
    for (let k = 0; k < BITS; k++) {
      const lv = (frame >> k) & 1;
      if (lv !== prev) drive(from, link[from].txPin, lv, start + k * bit);
      prev = lv;
    }
  }
  if (cutDuring(start, start + BITS * bit)) { counters.cut[from]++; return; }
  if (faults.drop && random() < faults.drop) { counters.dropped[from]++; return; }
  let wire = frame;
  if (faults.flip && random() < faults.flip) {
    wire ^= 1 << (1 + Math.floor(random() * 8));
    counters.flipped[from]++;
  }
  prev = 1;
  for (let k = 0; k < BITS; k++) {
    const lv = (wire >> k) & 1;
    if (lv !== prev) drive(to, link[to].rxPin, lv, start + k * bit);
    prev = lv;
  }
  // What the receiver's UART reads: from each falling edge (a start bit), mid-bit at its
  // own rate (idle high past the frame); after a character it waits for the next falling
  // edge, so a faster receiver reads several characters out of one slow byte. A
  // character with a bad stop bit (a framing error) still reaches the reader, as
  // MicroPython's rp2 UART keeps it; a break (the line low a whole character) does not.
  const rbaud = baudTrue(to);
  const rbit = rbaud ? 1e9 / rbaud : bit;
  const levelAt = (dt) => { const k = Math.floor(dt / bit); return k >= 0 && k < BITS ? (wire >> k) & 1 : 1; };
  let edge = 0;
  while (edge !== null) {
    let got = 0;
    for (let k = 0; k < 8; k++) got |= levelAt(edge + (k + 1.5) * rbit) << k;
    const done = edge + STOP_SAMPLE_BITS * rbit;
    const framed = levelAt(done) === 1;
    if (!framed) counters.misframed[to]++;
    if (framed || got !== 0) deliver(to, start + done, got);
    edge = null;
    for (let k = Math.ceil(done / bit); k < BITS; k++) {
      if (k > 0 && !((wire >> k) & 1) && ((wire >> (k - 1)) & 1)) { edge = k * bit; break; }
    }
  }
}

// A character whole at the receiver's UART at true time `ready`.
function deliver(to, ready, got) {
  if (outside && to === 1) { outsideWire.push([ready, got]); return; }
  const rh = chips[to];
  if (!rh.state().chip) { counters.not_listening[to]++; return; }
  const rl = localOf(to, ready);
  if (rl < rh.now() - 0.5) counters.late[to]++;
  rh.at(rl, () => {
    const u = uartOf(to);
    if (!u || !u.enabled || !u.rxEnabled) { counters.not_listening[to]++; return; }
    if (u.rxFIFO.full) { counters.overrun[to]++; return; }
    counters.delivered[to]++;
    u.feedByte(got);
  });
}

function attach(i) {
  chips[i].hooks.onBoot = (chip) => {
    link[i].lineFree = trueNs;
    chip.uart[link[i].uart].onByte = (v) => onByte(i, v);
    // The cable's idle line (and the RX pull-up) until a bit says otherwise.
    chips[i].setPin(link[i].rxPin, 1);
    chips[i].setPin(link[i].txPin, 1);
  };
}
attach(0);
attach(1);

function run(args) {
  const target = args.until;
  const wallEnd = Date.now() + (args.wall_ms || 60000);
  const stopOnSerial = args.stop_on_serial || [false, false];
  const stopOnReset = !!args.stop_on_reset;
  const resets0 = [chips[0].state().resets, chips[1].state().resets];
  let reason = 'time';
  let n = 0;
  while (trueNs < target) {
    let slice = outside ? OUTSIDE_SLICE_NS : IDLE_SLICE_NS;
    for (let i = 0; i < 2 && !outside; i++) {
      const b = baudTrue(i);
      if (b) slice = Math.min(slice, sliceNs, 1e9 / b);
    }
    const t = Math.min(trueNs + slice, target);
    for (let i = 0; i < 2; i++) {
      const h = chips[i];
      if (!h.state().chip) continue;
      const r = h.commands.run({ until: localOf(i, t), wall_ms: 3600e3 });
      if (r.reason === 'reset' && stopOnReset) reason = 'reset';
    }
    trueNs = t;
    for (let i = 0; i < 2; i++) {
      if (stopOnSerial[i] && chips[i].state().serialWaiting) reason = 'serial';
      if (stopOnReset && chips[i].state().resets > resets0[i]) reason = 'reset';
    }
    if (reason !== 'time') break;
    if (((++n & 0x3ff) === 0 || outside) && Date.now() > wallEnd) { reason = 'wall'; break; }
  }
  return { reason };
}

function linkConfigure(args) {
  if (args.slice_ns !== undefined) sliceNs = args.slice_ns;
  if (args.drop !== undefined) faults.drop = args.drop;
  if (args.flip !== undefined) faults.flip = args.flip;
  if (args.cut !== undefined) faults.cut = args.cut;
  if (args.loopback !== undefined) faults.loopback = args.loopback.map((x) => !!x);
  if (args.outside !== undefined) outside = !!args.outside;
  if (args.outside_baud !== undefined) outsideBaud = args.outside_baud;
  if (args.seed !== undefined) seed = (args.seed >>> 0) || 1;
  if (args.ppm !== undefined) args.ppm.forEach((p, i) => setRate(i, 1 + p / 1e6));
  if (args.pins !== undefined) args.pins.forEach(([tx, rx], i) => { link[i].txPin = tx; link[i].rxPin = rx; });
  return {};
}

const linkCommands = {
  link_configure: linkConfigure,
  run,
  // Bytes (hex) onto chip `to`'s RX as if its peer had sent them, from now at `baud`
  // (default: the receiver's own rate): garbage, floods, frames from another version.
  inject(args) {
    const to = args.to;
    if (to !== 0 && to !== 1) throw new Error('inject: to must be 0 or 1');
    const baud = args.baud || baudTrue(to) || 115200;
    const bytes = Buffer.from(args.hex || '', 'hex');
    for (const b of bytes) transmit(1 - to, to, b, trueNs, 1e9 / baud, false);
    return { injected: bytes.length };
  },
  // Each chip's own time at a true time (default now), and the true time now.
  clocks(args) {
    const t = args.at === undefined ? trueNs : args.at;
    return { local: [localOf(0, t), localOf(1, t)], rate: [link[0].rate, link[1].rate] };
  },
  quit() { setImmediate(() => process.exit(0)); return {}; },
};

function reply(obj) {
  obj.t = trueNs;
  obj.chips = chips.map((h) => h.takeEvents({}));
  obj.link = counters;
  if (outsideWire.length) { obj.wire = outsideWire; outsideWire = []; }
  process.stdout.write(JSON.stringify(obj) + '\n');
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    reply({ id: null, error: 'bad request: ' + line.slice(0, 80) });
    return;
  }
  try {
    let result;
    if (msg.chip === 0 || msg.chip === 1) {
      const h = chips[msg.chip];
      const f = h.commands[msg.cmd];
      if (!f || msg.cmd === 'run' || msg.cmd === 'quit') throw new Error('unknown chip command ' + msg.cmd);
      if (!h.state().chip && !['boot', 'configure'].includes(msg.cmd)) throw new Error('chip ' + msg.chip + ' not booted');
      result = f(msg);
      if (msg.cmd === 'boot') {                 // its clock starts again from 0, now
        link[msg.chip].anchorTrue = trueNs;
        link[msg.chip].anchorLocal = h.now();
      }
    } else {
      const f = linkCommands[msg.cmd];
      if (!f) throw new Error('unknown command ' + msg.cmd);
      result = f(msg);
    }
    reply(Object.assign({ id: msg.id, ok: true }, result));
  } catch (e) {
    reply({ id: msg.id, error: String(e && e.message || e).split('\n')[0] });
  }
});
rl.on('close', () => process.exit(0));
