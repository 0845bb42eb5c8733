// The emulated Pico: rp2040js, stepped in exact guest time, driven by Python
// (desktop_emulator/pico/device.py) over JSON lines on stdin/stdout.
//
// This side is deliberately thin. It owns only what must run per instruction or per
// bus event: the CPU loop, scheduled pin edges, I2C bus time, the flash operations the
// emulator lacks, the USB serial link, the watchdog reset, the PIO state machines' clock
// (and the FIFO joining rp2040js lacks) and wires between pins (jumpers). Everything that decides
// anything (UF2 parsing, the filesystem, the SSD1306 picture, the raw REPL, tests) is
// Python's.
//
// Run as a program it serves one chip. Imported (by link.mjs, once per chip, each import
// with its own query string so each chip gets its own module state) it serves nothing
// and exports its commands, its event queues and two hooks: onBoot(chip) after every
// (re)boot, and at(ns, fn) to run fn at an exact guest time of this chip.
//
// Requests:  {"id": n, "cmd": name, ...args}
// Replies:   {"id": n, "ok": true, ...}  or  {"id": n, "error": "one line"}
// Every reply carries "t" (guest ns since the first boot) and the events since the
// previous reply: "serial" (latin-1 text from the USB serial port), "i2c" (finished
// transactions [t_start, t_end, addr, hex, acked]), "pwm" ([t, offset, value] writes to
// the PWM block), "resets" ([t, why]), "flash" ([t, "erase"|"program", offset, bytes]).

import { readFileSync, writeFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import { RP2040, USBCDC, ConsoleLogger, LogLevel } from 'rp2040js';

// rp2040js logs through console.*: keep stdout for the protocol.
console.log = console.info = console.debug = console.warn = (...a) => process.stderr.write(a.join(' ') + '\n');

const FLASH_BASE = 0x10000000;
const TIMER_BASE = 0x40054;       // peripheral keys are (address >>> 14) << 2
const WATCHDOG_BASE = 0x40058;
const PWM_BASE = 0x40050;
const BKPT_ERASE = 0x51;
const BKPT_PROGRAM = 0x52;
// Typical W25Q16JV times (the Pico's flash): the CPU waits this long with interrupts
// off inside the SDK's flash routines.
const ERASE_SECTOR_NS = 45e6;     // 4 KB sector erase
const ERASE_BLOCK_NS = 150e6;     // 64 KB block erase
const PROGRAM_PAGE_NS = 0.4e6;    // 256-byte page program

let chip = null;
let clock = null;
let cdc = null;
let baseNs = 0;                   // guest ns before the current boot
let bootrom = null;               // patched boot ROM, kept for reboots
let config = { i2c: { addresses: [0x3c], nackAfter: -1 }, timerStartUs: 0, pwm: true, jumpers: [] };
let edges = [];                   // [ns, pin, level] sorted by ns, not yet applied
let edgeAlarm = null;
let pinLevels = new Map();        // pin -> level the host drives now
let stallNs = 0;
let rebootWhy = null;
let stopNow = false;
const out = { serial: [], i2c: [], pwm: [], resets: [], flash: [] };
let flashStopAfter = 0;           // stop the run after this many more flash operations
let serialQueue = [];             // bytes waiting for the device to ask for them
let pendingRead = 0;              // size of an OUT request the device made while we had nothing
let i2cTx = null;                 // the transaction on the bus
let machines = [];                // the enabled PIO state machines, stepped every cycle
let gpioWord = 0;                 // the GPIO input word, cached (rp2040js rebuilds it per read)
let gpioDirty = true;
let fastForward = true;           // skip provably idle PIO loops (exactly; see below)
// MicroPython's garbage collections, watched by where the core's PC enters three of its
// functions (addresses from the image's symbol table, `configure` gc_watch): a collection
// whose end (gc_collect_end) marks blocks again (gc_mark_subtree) overflowed its mark
// stack and scanned the heap twice. null: not watched (the run loop checks only that).
// Each collection's span in this chip's ns is kept too (the first GC_SPANS_MAX): from
// entering gc_collect_start to gc_collect_end's return (the address in LR as it is
// entered), so a bench can tell which frames a collection fell in, with no probe on
// the chip (MicroPython's own collections, an allocation that found no room, included).
let gcWatch = null;
let gcStats = { collections: 0, rescanned: 0, rescan_marks: 0 };
let gcEndMarks = -1;              // marks since the last gc_collect_end; -1 outside one
const GC_SPANS_MAX = 4096;
let gcSpans = [];                 // [start ns, end ns or -1, blocks marked again, bytes]
let gcReturn = -1;                // where gc_collect_end returns to; -1 outside it
let gcAsked = 0;                  // the last gc_alloc's bytes: the one that failed, if a
                                  // collection follows it (MicroPython's own)

const now = () => baseNs + clock.nanos;

function latin1(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}

// ---- boot -------------------------------------------------------------------------

function patchBootrom(rom) {
  // The ROM's function table (pointer at 0x14) lists two-letter codes and addresses.
  // flash_range_erase ('RE') and flash_range_program ('RP') become BKPT #n; BX LR and
  // are done on the host, because the emulator's SSI ignores flash commands.
  const view = new DataView(rom.buffer, rom.byteOffset, rom.byteLength);
  let p = view.getUint16(0x14, true);
  const found = {};
  for (; ;) {
    const code = view.getUint16(p, true);
    if (code === 0) break;
    const addr = view.getUint16(p + 2, true) & ~1;
    const name = String.fromCharCode(code & 0xff, code >> 8);
    if (name === 'RE' || name === 'RP') {
      view.setUint16(addr, 0xbe00 | (name === 'RE' ? BKPT_ERASE : BKPT_PROGRAM), true);
      view.setUint16(addr + 2, 0x4770, true);   // BX LR
      found[name] = addr;
    }
    p += 4;
  }
  if (!found.RE || !found.RP) throw new Error('boot ROM has no flash_range_erase/program in its function table');
  return rom;
}

function onBreak(code) {
  const r = chip.core.registers;
  if (code === BKPT_ERASE) {
    const addr = r[0] >>> 0, count = r[1] >>> 0, blockSize = r[2] >>> 0;
    chip.flash.fill(0xff, addr, Math.min(addr + count, chip.flash.length));
    if (blockSize >= 0x10000) {
      const blocks = Math.floor(count / 0x10000);
      stallNs += blocks * ERASE_BLOCK_NS + Math.ceil((count - blocks * 0x10000) / 4096) * ERASE_SECTOR_NS;
    } else {
      stallNs += Math.ceil(count / 4096) * ERASE_SECTOR_NS;
    }
    out.flash.push([now(), 'erase', addr, count]);
  } else if (code === BKPT_PROGRAM) {
    const addr = r[0] >>> 0, src = r[1] >>> 0, count = r[2] >>> 0;
    for (let i = 0; i < count && addr + i < chip.flash.length; i++) {
      chip.flash[addr + i] &= chip.readUint8(src + i);   // NOR flash only clears bits
    }
    stallNs += Math.ceil(count / 256) * PROGRAM_PAGE_NS;
    out.flash.push([now(), 'program', addr, count]);
  } else {
    throw new Error('breakpoint #' + code + ' at 0x' + (chip.core.PC >>> 0).toString(16));
  }
  if (flashStopAfter > 0 && --flashStopAfter === 0) stopNow = true;
}

function attachTimerOffset() {
  // The chip's µs timer as if the board had been on for timerStartUs (the 2**30 wrap
  // can then be reached without emulating 18 minutes).
  const timer = chip.peripherals[TIMER_BASE];
  const offset = config.timerStartUs * 1000;
  const real = clock;
  timer.clock = {
    get nanos() { return real.nanos + offset; },
    createAlarm: (cb) => real.createAlarm(cb),
  };
}

function attachI2C() {
  for (const bus of chip.i2c) {
    const bitNs = () => {
      const speed = (bus.control >> 1) & 3;
      const cycles = speed === 1 ? bus.ssClockHighPeriod + bus.ssClockLowPeriod
        : bus.fsClockHighPeriod + bus.fsClockLowPeriod;
      return Math.max(cycles, 1) * 1e9 / chip.clkSys;   // the I2C blocks run on clk_sys
    };
    const alarm = clock.createAlarm(() => { const f = bus._next; bus._next = null; if (f) f(); });
    const later = (bits, f) => { bus._next = f; alarm.schedule(bits * bitNs()); };
    bus.onStart = () => later(1, () => bus.completeStart());
    bus.onConnect = (address, mode) => {
      const ack = config.i2c.addresses.includes(address);
      i2cTx = { start: now(), addr: address, read: mode === 1, bytes: [], ack };
      later(9, () => bus.completeConnect(ack));
    };
    bus.onWriteByte = (value) => {
      let ack = true;
      if (config.i2c.nackAfter === 0) { ack = false; config.i2c.nackAfter = -1; }
      else if (config.i2c.nackAfter > 0) config.i2c.nackAfter--;
      if (i2cTx) { i2cTx.bytes.push(value); if (!ack) i2cTx.ack = false; }
      later(9, () => bus.completeWrite(ack));
    };
    bus.onReadByte = () => later(9, () => bus.completeRead(0x00));
    bus.onStop = () => later(1, () => {
      if (i2cTx) {
        const hex = Buffer.from(i2cTx.bytes).toString('hex');
        out.i2c.push([i2cTx.start, now(), i2cTx.addr, hex, i2cTx.ack]);
        i2cTx = null;
      }
      bus.completeStop();
    });
  }
}

function attachPWM() {
  const pwm = chip.peripherals[PWM_BASE];
  const write = pwm.writeUint32.bind(pwm);
  pwm.writeUint32 = (offset, value) => {
    write(offset, value);
    out.pwm.push([now(), offset, value >>> 0]);
  };
}

function attachUSB() {
  cdc = new USBCDC(chip.usbCtrl);
  cdc.onSerialData = (buffer) => { out.serial.push(latin1(buffer)); };
  // As shipped, an OUT request with nothing to send is answered at once with an empty
  // packet, so an idle REPL polls every 10 µs; answer only when there is data.
  chip.usbCtrl.onEndpointRead = (endpoint, size) => {
    if (endpoint !== cdc.outEndpoint) return;
    if (serialQueue.length) sendSerial(size);
    else pendingRead = size;
  };
}

function sendSerial(size) {
  const n = Math.min(size, serialQueue.length);
  const chunk = new Uint8Array(serialQueue.splice(0, n));
  chip.usbCtrl.endpointReadDone(cdc.outEndpoint, chunk);
}

// rp2040js keeps the UART's TX interrupt raised for good (it re-raises it whenever it
// checks), so once MicroPython enables it the core never leaves the handler. On the chip
// it is raised when the TX FIFO has drained to its trigger level, and cleared by UARTICR.
// Here the FIFO never fills (rp2040js never reports TXFF: MicroPython moves a whole write
// into it at once) and the interrupt comes when the bytes written so far have had their
// time on the line (10 bits each at the UART's baud rate, as link.mjs sends them).
// Raising it sooner interrupts MicroPython's FIFO fill while it holds the UART's write
// mutex, and its handler then waits on the mutex (seen: 1-2 bytes per ms).
// TXE (UARTCR bit 8) holds the transmitter: on the chip what is written meanwhile waits
// in the FIFO and leaves when TXE is set again (firmware/hw/link_uart.py queues a frame
// so). rp2040js sends each byte as it is written; here the bytes wait for TXE.
const UARTDR = 0x0, UARTCR = 0x30, UART_TXE = 1 << 8, UART_TXINTR = 1 << 5;

function attachUARTs() {
  for (const u of chip.uart) {
    u.checkInterrupts = function checkInterrupts() {
      this.rp2040.setInterrupt(this.irq, !!(this.interruptStatus & this.interruptMask));
    };
    let drainedAt = 0;
    let generation = 0;
    const raise = (g) => {
      if (g !== generation) return;              // more was written since: later
      u.interruptStatus |= UART_TXINTR;
      u.checkInterrupts();
    };
    const write = u.writeUint32.bind(u);
    let held = [];
    u.writeUint32 = (offset, value) => {
      if (offset === UARTDR && !(u.ctrlRegister & UART_TXE)) { held.push(value); return; }
      write(offset, value);
      if (offset === UARTDR) {
        const baud = u.baudDivider ? u.rp2040.clkPeri / (u.baudDivider * 16) : 115200;
        drainedAt = Math.max(drainedAt, now()) + 10e9 / baud;
        at(drainedAt, raise, ++generation);
      } else if (offset === UARTCR && (value & UART_TXE) && held.length) {
        const queued = held;
        held = [];
        for (const v of queued) u.writeUint32(UARTDR, v);
      }
    };
  }
}

function scheduleEdges() {
  if (!edgeAlarm) edgeAlarm = clock.createAlarm(applyEdges);
  edgeAlarm.cancel();
  if (edges.length) edgeAlarm.schedule(Math.max(0, edges[0][0] - now()));
}

function applyEdges() {
  const t = now();
  while (edges.length && edges[0][0] <= t) {
    const [, pin, level] = edges.shift();
    if (typeof pin === 'function') pin(level);   // at(): a host action at its exact time
    else setPin(pin, level);
  }
  scheduleEdges();
}

function setPin(pin, level) {
  pinLevels.set(pin, level);
  chip.gpio[pin].setInputValue(!!level && !jumperLow(pin));
}

// ---- jumpers: a wire from an output pin to an input pin ------------------------------
// The input reads low while the host holds it low (a pressed button) or the wire's source
// drives it low (wired-AND, as a jumper onto a pulled-up button pin behaves).

function jumperLow(pin) {
  for (const [from, to] of config.jumpers) {
    if (to === pin) {
      const g = chip.gpio[from];
      if (g.outputEnable && !g.outputValue) return true;
    }
  }
  return false;
}

// The flash chip's unique id (command 0x4B), which the SDK reads once at boot and
// machine.unique_id() returns. The emulator's SSI ignores flash commands, so every chip
// would read zeros, and two chips on one link cable would have the same id (the link's
// election, R43, needs them to differ, as on real boards). Each chip answers the command
// with its own id: the n-th chip imported (link.mjs's `?chip=n`) ends in n.
const CHIP_INDEX = Number(new URL(import.meta.url).searchParams.get('chip') || 0);
const SSI_BASE = 0x18000000;
const SSI_DR0 = 0x60;
const FLASH_READ_UID = 0x4b;
const UID_DUMMY_BYTES = 5;        // the command and four dummy bytes come before the id

function attachFlashId() {
  const ssi = chip.findPeripheral(SSI_BASE);
  const read = ssi.readUint32.bind(ssi);
  const write = ssi.writeUint32.bind(ssi);
  const id = [0xe6, 0x60, 0x58, 0x38, 0x83, 0x20, 0x51, CHIP_INDEX];
  let byte = UID_DUMMY_BYTES + id.length;         // no command in progress
  ssi.writeUint32 = (offset, value) => {
    if (offset === SSI_DR0 && value === FLASH_READ_UID) byte = 0;
    write(offset, value);
  };
  ssi.readUint32 = (offset) => {
    if (offset !== SSI_DR0 || byte >= UID_DUMMY_BYTES + id.length) return read(offset);
    const i = byte++ - UID_DUMMY_BYTES;
    return i >= 0 ? id[i] : read(offset);
  };
}

function attachJumpers() {
  for (const [from, to] of config.jumpers) {
    chip.gpio[from].addListener(() => {
      const level = pinLevels.has(to) ? pinLevels.get(to) : 1;
      const want = !!level && !jumperLow(to);
      if (chip.gpio[to].rawInputValue !== want) chip.gpio[to].setInputValue(want);
    });
  }
}

// ---- GPIO input word --------------------------------------------------------------------
// rp2040js computes GPIO_IN from 30 pin objects on every read; the PIO reads it every few
// cycles. The same value, cached until a pin's input, pad or function changes.

function attachGpioCache() {
  gpioDirty = true;
  for (const pin of chip.gpio) {
    const set = pin.setInputValue.bind(pin);
    pin.setInputValue = (value) => {
      if (machines.length) settleAll();          // the PIO sees the change from now on
      gpioDirty = true;
      set(value);
    };
  }
  // PADS_BANK0 (input enables) and IO_BANK0 (input overrides) change what pins read.
  for (const base of [0x4001c, 0x40014]) {
    const p = chip.peripherals[base];
    const write = p.writeUint32.bind(p);
    p.writeUint32 = (offset, value) => {
      if (machines.length) settleAll();
      gpioDirty = true;
      write(offset, value);
    };
  }
  Object.defineProperty(chip, 'gpioValues', {
    get() {
      if (gpioDirty) {
        let word = 0;
        const { gpio } = chip;
        for (let i = 0; i < gpio.length; i++) if (gpio[i].inputValue) word |= 1 << i;
        gpioWord = word;
        gpioDirty = false;
      }
      return gpioWord;
    },
  });
}

// ---- PIO ------------------------------------------------------------------------------
// rp2040js 1.4.1 runs its PIO from a JavaScript timer, ignores delay cycles and keeps 4+4
// FIFOs whatever the join. Here each enabled state machine is stepped once per system
// clock cycle from guest time (run() below): an instruction with [n] delay cycles holds
// its machine for n more cycles, the clock divider is honoured, and SHIFTCTRL's FJOIN
// bits give 8+0 or 0+8 FIFOs, cleared whenever the join changes (as on the chip).
//
// Fast-forward, exact. Stepping every cycle costs about twice what the CPU itself costs,
// most of it in loops that wait for a pin to change. A pass round a machine's loop (from
// its wrap target back to it) that touches no FIFO, IRQ flag or pin, and leaves every
// register as it found it but X one less, where X's value only ever went through copies
// and `jmp x--` (checked instruction by instruction on a real pass), goes the same way
// again while the pins and the machine's registers stay as they are. Such a machine is
// not stepped: before anything can see or change it (a pin's input, an IO_BANK0
// override, any access to its PIO block's registers, a DMA transfer from its FIFO) or
// before X reaches a value the pass tested, it is put in exactly the state cycle-by-cycle
// stepping gives (whole passes counted, the rest of one stepped). Likewise a machine
// that jumps to itself on a pin's level (or always), at any clock divider: it stays put,
// its divider's phase counted, until a pin changes. configure {pio_fast_forward: false}
// steps every cycle instead (the tests compare the two).

const PIO_CTRL = 0x000;
const SM0_CLKDIV = 0x0c8;
const SM_STRIDE = 0x18;
const SHIFTCTRL_OFFSET = 0x08;
const EXECCTRL_OFFSET = 0x04;
const FJOIN_TX = 1 << 30;
const FJOIN_RX = 1 << 31;
const AUTO_PUSH_PULL = 3 << 16;
const MAX_PASS = 64;                  // instructions in a pass worth checking
const IND = 'ind';                    // a value that does not depend on X at the pass's start
const DEP = 'dep';                    // one that does, other than as X + k (a number)

let pioNow = 0;                       // PIO cycles since boot
let skipping = 0;                     // enabled machines being fast-forwarded
let skipUntil = -1;                   // while all of them are: the cycle one must be settled
let replaying = false;

function attachPIO() {
  machines = [];
  pioNow = 0;
  skipping = 0;
  skipUntil = -1;
  for (const pio of chip.pio) {
    pio.run = () => { };                        // no JavaScript timer: guest time steps it
    for (const sm of pio.machines) {
      sm.hold = 0;                               // delay cycles still to wait
      sm.div256 = 256;                           // clock divider in 1/256 steps
      sm.divAcc = 0;
      sm.head = 0;                               // its wrap target
      sm.ff = null;                              // {start, x, period, until} while skipping
      sm.pass = null;                            // the pass being checked
      sm.backoff = 0;                            // wrap-target arrivals before the next check
    }
    const read = pio.readUint32.bind(pio);
    pio.readUint32 = (offset) => { settleBlock(pio, false); return read(offset); };
    const write = pio.writeUint32.bind(pio);
    pio.writeUint32 = (offset, value) => {
      settleBlock(pio, true);
      const rel = offset - SM0_CLKDIV;
      if (rel >= 0 && rel < 4 * SM_STRIDE) {
        const sm = pio.machines[Math.floor(rel / SM_STRIDE)];
        const join = sm.shiftCtrl & (FJOIN_TX | FJOIN_RX);
        write(offset, value);
        if (rel % SM_STRIDE === 0) setDivider(sm);
        if (rel % SM_STRIDE === EXECCTRL_OFFSET) sm.head = sm.wrapBottom;
        if (rel % SM_STRIDE === SHIFTCTRL_OFFSET && (sm.shiftCtrl & (FJOIN_TX | FJOIN_RX)) !== join) {
          joinFIFOs(sm);
        }
        return;
      }
      write(offset, value);
      if (offset === PIO_CTRL) {
        for (let i = 0; i < 4; i++) {
          const sm = pio.machines[i];
          if (value & (1 << (4 + i))) sm.hold = 0;        // SM_RESTART
          if (value & (1 << (8 + i))) sm.divAcc = 0;      // CLKDIV_RESTART
        }
        refreshMachines();
      }
    };
  }
}

function setDivider(sm) {
  const whole = sm.clockDivInt || 65536;
  sm.div256 = whole * 256 + (whole === 65536 ? 0 : sm.clockDivFrac);
  sm.divAcc = 0;
}

function joinFIFOs(sm) {
  const ctrl = sm.shiftCtrl;
  const rx = ctrl & FJOIN_RX ? (ctrl & FJOIN_TX ? 0 : 8) : (ctrl & FJOIN_TX ? 0 : 4);
  const tx = ctrl & FJOIN_TX ? (ctrl & FJOIN_RX ? 0 : 8) : (ctrl & FJOIN_RX ? 0 : 4);
  const FIFO = sm.rxFIFO.constructor;
  sm.rxFIFO = new FIFO(rx);
  sm.txFIFO = new FIFO(tx);
  sm.updateDMARx();
  sm.updateDMATx();
  sm.pio.checkInterrupts();
}

function refreshMachines() {
  machines = [];
  for (const pio of chip.pio) {
    for (const sm of pio.machines) {
      if (sm.enabled) {
        sm.head = sm.wrapBottom;
        machines.push(sm);
      }
    }
  }
  updateSkip();
}

function updateSkip() {
  skipUntil = -1;
  if (!machines.length || skipping !== machines.length) return;
  skipUntil = Infinity;
  for (const sm of machines) if (sm.ff.until < skipUntil) skipUntil = sm.ff.until;
}

// One system clock cycle of every enabled state machine.
function pioCycle() {
  const list = machines;
  for (let i = 0; i < list.length; i++) {
    const sm = list[i];
    if (sm.ff !== null) {
      if (pioNow < sm.ff.until) continue;
      settle(sm);                               // X is about to meet a value its pass tested
    }
    stepMachine(sm);
  }
  for (let i = 0; i < list.length; i++) list[i].pio.checkChangedPins();
  pioNow++;
}

function stepMachine(sm) {
  if (sm.div256 !== 256) {
    sm.divAcc += 256;
    if (sm.divAcc < sm.div256) return;
    sm.divAcc -= sm.div256;
  }
  if (sm.hold > 0) { sm.hold--; return; }
  const c0 = sm.cycles;
  if (sm.waiting) {                              // a stalled instruction: try again
    sm.pass = null;
    sm.checkWait();
    if (!sm.waiting) sm.hold = sm.cycles - c0;   // done now; then its delay cycles
    return;
  }
  if (sm.pc === sm.head && !replaying && fastForward && sm.div256 === 256 && atHead(sm)) return;
  const at = sm.pc;
  const op = sm.pio.instructions[at];
  if (sm.pass !== null) {
    if (sm.pass.ops.length < MAX_PASS) sm.pass.ops.push(op);
    else sm.pass = null;
  }
  sm.updatePC = true;
  sm.executeInstruction(op);
  if (sm.updatePC) sm.nextPC();
  if (!sm.waiting) sm.hold = sm.cycles - c0 - 1;
  if (fastForward && !replaying && sm.pc === at && (op & 0x1f) === at && isSelfLoop(sm, op)) {
    sm.ff = { loop: true, start: pioNow + 1, until: Infinity };
    skipping++;
    updateSkip();
  }
}

// A machine that just took `jmp <cond> self` (so not a wrap to itself) where nothing but a pin can change the
// condition (always, or PIN) and that has no delay, side-set or pending EXEC: it takes the
// same jump at every step of its clock until a pin's input changes (which settles it
// first), so it needs no stepping till then. Any clock divider (the link's start-bit
// watchers run at clk_sys / 5). Not at the wrap target: that is atHead()'s.
function isSelfLoop(sm, op) {
  if (op >>> 13 !== 0 || (op & 0x1f) === sm.head || sm.hold !== 0) return false;
  const cond = (op >> 5) & 7;
  if (cond !== 0 && cond !== 6) return false;
  return !((op >> 8) & 0x1f) && !sm.sidesetCount && !sm.execValid && !sm.waiting;
}

// The machine is at its wrap target: if the pass just made can be repeated, skip; else
// start checking a new pass.
function atHead(sm) {
  if (sm.backoff > 0) {
    sm.backoff--;
    return false;
  }
  const p = sm.pass;
  if (p !== null) {
    sm.pass = null;
    const again = passesAhead(sm, p);
    if (again > 0) {
      const period = pioNow - p.start;
      sm.ff = { start: pioNow, x: sm.x, period, until: pioNow + again * period };
      skipping++;
      updateSkip();
      return true;
    }
    sm.backoff = 15;                             // a loop that does things: look again later
    return false;
  }
  sm.pass = {
    start: pioNow, x: sm.x, y: sm.y, isr: sm.inputShiftReg, isrN: sm.inputShiftCount,
    osr: sm.outputShiftReg, osrN: sm.outputShiftCount, rx: sm.rxFIFO.itemCount,
    tx: sm.txFIFO.itemCount, irq: sm.pio.irq, pins: sm.pio.pinValues,
    dirs: sm.pio.pinDirections, ops: [],
  };
  return false;
}

// How many more passes will go exactly like pass p (0: it cannot be repeated blindly).
function passesAhead(sm, p) {
  if (sm.execValid || sm.sidesetCount || sm.shiftCtrl & AUTO_PUSH_PULL) return 0;
  if (sm.y !== p.y || sm.rxFIFO.itemCount !== p.rx || sm.txFIFO.itemCount !== p.tx ||
      sm.pio.irq !== p.irq || sm.pio.pinValues !== p.pins || sm.pio.pinDirections !== p.dirs) {
    return 0;
  }
  const a = checkPass(p.ops, p.x);
  if (a === null) return 0;
  if (!a.isrDead && (sm.inputShiftReg !== p.isr || sm.inputShiftCount !== p.isrN)) return 0;
  if (!a.osrDead && (sm.outputShiftReg !== p.osr || sm.outputShiftCount !== p.osrN)) return 0;
  return a.passes;
}

// Follows X (as "X at the start + k", a number) through the instructions of a pass.
// -> {passes, isrDead, osrDead}, or null if the pass touches anything outside the
// machine, lets X's value steer it other than through `jmp x--`, or ends with X other
// than one less or with a live register that depends on X.
function checkPass(ops, x0) {
  let X = 0, Y = IND, ISR = IND, OSR = IND;
  let isrDead = null, osrDead = null;            // first touch a full write: dead at the start
  let passes = Infinity;
  const readIsr = () => { if (isrDead === null) isrDead = false; };
  const readOsr = () => { if (osrDead === null) osrDead = false; };
  const value = (src) => {
    switch (src) {
      case 1: return X;
      case 2: return Y;
      case 6: readIsr(); return ISR;
      case 7: readOsr(); return OSR;
      default: return IND;                        // pins, null, status
    }
  };
  for (const op of ops) {
    const arg = op & 0xff;
    switch (op >>> 13) {
      case 0: {                                   // JMP
        const cond = arg >> 5;
        if (cond === 1 && X !== IND) return null;
        if (cond === 2) {
          if (typeof X === 'number') {
            const v = (x0 + X) >>> 0;             // X's value at this test in the pass made
            if (v === 0) return null;
            passes = Math.min(passes, v - 1);
            X -= 1;
          } else if (X !== IND) return null;
        }
        if ((cond === 3 || cond === 4) && Y !== IND) return null;
        if (cond === 5 && (X !== IND || Y !== IND)) return null;
        if (cond === 7) readOsr();
        break;
      }
      case 2: {                                   // IN
        const src = arg >> 5;
        if (src === 4 || src === 5) return null;
        const v = value(src);
        readIsr();
        ISR = ISR === IND && v === IND ? IND : DEP;
        break;
      }
      case 3: {                                   // OUT
        const dst = arg >> 5;
        readOsr();
        const v = OSR === IND ? IND : DEP;
        if (dst === 1) X = v;
        else if (dst === 2) Y = v;
        else if (dst === 6) { if (isrDead === null) isrDead = true; ISR = v; }
        else if (dst !== 3) return null;          // pins, pindirs, pc, exec
        break;
      }
      case 5: {                                   // MOV
        const src = arg & 7;
        const how = (arg >> 3) & 3;
        const dst = arg >> 5;
        if (src === 4 || how === 3) return null;
        let v = value(src);
        if (how !== 0 && v !== IND) v = DEP;      // inverted or reversed
        if (dst === 1) X = v;
        else if (dst === 2) Y = v;
        else if (dst === 6) { if (isrDead === null) isrDead = true; ISR = v; }
        else if (dst === 7) { if (osrDead === null) osrDead = true; OSR = v; }
        else return null;                         // pins, exec, pc
        break;
      }
      case 7: {                                   // SET
        const dst = arg >> 5;
        if (dst === 1) X = IND;
        else if (dst === 2) Y = IND;
        else return null;                         // pins, pindirs
        break;
      }
      default: return null;                       // WAIT, PUSH, PULL, IRQ
    }
  }
  if (X !== -1 || Y !== IND || passes < 1) return null;
  if (ISR !== IND && !isrDead) return null;
  if (OSR !== IND && !osrDead) return null;
  return { passes, isrDead: !!isrDead, osrDead: !!osrDead };
}

// Put a skipping machine where cycle-by-cycle stepping would have it now.
function settle(sm) {
  const f = sm.ff;
  sm.ff = null;
  skipping--;
  skipUntil = -1;
  if (f.loop) {
    // Every cycle since `start` went through stepMachine's divider; each step it let
    // through ran the jump once (one cycle, no delay) and went on the pass being checked.
    let steps = pioNow - f.start;
    if (sm.div256 !== 256) {
      const acc = sm.divAcc + 256 * steps;
      steps = Math.floor(acc / sm.div256);
      sm.divAcc = acc - steps * sm.div256;
    }
    sm.cycles += steps;
    const p = sm.pass;
    if (p !== null && steps > 0) {
      if (p.ops.length + steps <= MAX_PASS) {
        const op = sm.pio.instructions[sm.pc];
        for (let i = 0; i < steps; i++) p.ops.push(op);
      } else sm.pass = null;
    }
    return;
  }
  const passes = Math.floor((pioNow - f.start) / f.period);
  const rest = pioNow - f.start - passes * f.period;
  sm.x = (f.x - passes) >>> 0;
  sm.cycles += passes * f.period;
  replaying = true;
  for (let i = 0; i < rest; i++) stepMachine(sm);
  replaying = false;
}

function settleBlock(pio, changing) {
  for (const sm of pio.machines) {
    if (sm.ff !== null) settle(sm);
    if (changing) sm.pass = null;
  }
}

function watchGC(core) {
  const pc = core.registers[15];
  if (pc === gcWatch[3]) {
    gcAsked = core.registers[0];
  } else if (pc === gcWatch[2]) {
    if (gcEndMarks >= 0) gcEndMarks++;
  } else if (pc === gcReturn) {
    endCollection();
  } else if (pc === gcWatch[1]) {
    endCollection();
    gcStats.collections++;
    gcEndMarks = 0;
    gcReturn = core.registers[14] & ~1;
  } else if (pc === gcWatch[0]) {
    endCollection();
    if (gcSpans.length < GC_SPANS_MAX) gcSpans.push([now(), -1, 0, gcAsked]);
  }
}

function endCollection() {
  if (gcEndMarks > 0) {
    gcStats.rescanned++;
    gcStats.rescan_marks += gcEndMarks;
  }
  const last = gcSpans.length ? gcSpans[gcSpans.length - 1] : null;
  if (last !== null && last[1] < 0 && gcEndMarks >= 0) {
    last[1] = now();
    last[2] = gcEndMarks;
  }
  gcEndMarks = -1;
  gcReturn = -1;
}

function settleAll() {
  for (const pio of chip.pio) settleBlock(pio, true);
}

// Guest time moves on `cycles` cycles with the PIO running; alarms fire on the way (edges
// reach the pins, DMA transfers happen) exactly as when every cycle is stepped. Returns
// early if an interrupt wakes the core, when `untilAwake`.
function runPIO(cycles, cycleNs, untilAwake) {
  const core = chip.core;
  while (cycles > 0 && !(untilAwake && !core.waiting)) {
    let step = 0;
    if (skipUntil >= 0) {                        // nothing to step: jump to the next alarm
      step = Math.min(cycles, skipUntil - pioNow);
      if (clock.nextAlarm) {
        const toAlarm = Math.ceil((clock.nextAlarm.nanos - clock.nanos) / cycleNs);
        if (toAlarm < step) step = toAlarm;
      }
    }
    if (step >= 1) {
      pioNow += step;
      cycles -= step;
      clock.tick(step * cycleNs);
    } else {
      pioCycle();
      clock.tick(cycleNs);
      cycles--;
    }
  }
}

// The PIO's share of one CPU instruction's cycles (the clock ticks after).
function pioInstruction(cycles) {
  if (pioNow + cycles <= skipUntil) pioNow += cycles;
  else for (let i = 0; i < cycles; i++) pioCycle();
}

function boot(args) {
  if (chip) baseNs = now();
  bootrom = bootrom || patchBootrom(new Uint8Array(readFileSync(args.bootrom)));
  const flash = chip ? chip.flash.slice() : null;
  chip = new RP2040();
  clock = chip.clock;
  chip.logger = new ConsoleLogger(LogLevel.Error, true);
  chip.loadBootrom(new Uint32Array(bootrom.buffer, bootrom.byteOffset, bootrom.byteLength / 4));
  if (args.flash) {
    const image = readFileSync(args.flash);
    if (image.length > chip.flash.length) throw new Error('flash image larger than 16 MB');
    chip.flash.set(image);
  } else if (flash) {
    chip.flash.set(flash);
  }
  chip.onBreak = onBreak;
  attachPIO();
  attachGpioCache();
  const wdt = chip.peripherals[WATCHDOG_BASE];
  // A timeout is the watchdog biting; a trigger (CTRL.TRIGGER) is a requested reset.
  wdt.onWatchdogTrigger = () => { rebootWhy = wdt.reason === 2 ? 'reset' : 'watchdog'; };
  attachTimerOffset();
  attachI2C();
  if (config.pwm) attachPWM();
  attachUSB();
  attachUARTs();
  attachJumpers();
  attachFlashId();
  serialQueue = [];
  pendingRead = 0;
  i2cTx = null;
  edgeAlarm = null;
  for (const [pin, level] of pinLevels) chip.gpio[pin].setInputValue(!!level && !jumperLow(pin));
  scheduleEdges();
  chip.core.PC = FLASH_BASE;
  if (hooks.onBoot) hooks.onBoot(chip);
}

// ---- running ----------------------------------------------------------------------

function run(args) {
  const target = args.until;
  const wallEnd = Date.now() + (args.wall_ms || 60000);
  const stopOnSerial = !!args.stop_on_serial;
  let core = chip.core;
  const cycleNs = 1e9 / chip.clkSys;
  let n = 0;
  let reason = 'time';
  stopNow = false;
  flashStopAfter = args.stop_after_flash_ops || 0;
  while (now() < target) {
    if (core.waiting) {
      const limit = target - baseNs;
      const next = clock.nextAlarm ? Math.min(clock.nextAlarm.nanos, limit) : limit;
      if (machines.length) {
        // The state machines run while the core sleeps, up to the next alarm or until
        // an interrupt (a PIO IRQ, a DMA completion) wakes the core.
        const cycles = Math.ceil((next - clock.nanos) / cycleNs);
        if (cycles > 0) runPIO(cycles, cycleNs, true);
        else clock.tick(0);                       // an alarm due now (e.g. a DMA transfer)
      } else {
        clock.tick(Math.max(next - clock.nanos, 0));
      }
    } else {
      if (gcWatch !== null) watchGC(core);
      const cycles = core.executeInstruction();
      if (pioNow + cycles <= skipUntil) pioNow += cycles;    // every machine is skipping
      else if (machines.length) pioInstruction(cycles);
      clock.tick(cycles * cycleNs);
    }
    if (stallNs) {
      const s = stallNs;
      stallNs = 0;
      if (machines.length) runPIO(Math.round(s / cycleNs), cycleNs, false);
      else clock.tick(s);
    }
    if (rebootWhy) {
      const why = rebootWhy;
      rebootWhy = null;
      out.resets.push([now(), why]);
      boot({});
      core = chip.core;
      reason = 'reset';
      if (args.stop_on_reset) break;
      continue;
    }
    if ((++n & 0xffff) === 0 && Date.now() > wallEnd) { reason = 'wall'; break; }
    if (stopOnSerial && out.serial.length) { reason = 'serial'; break; }
    if (stopNow) { reason = 'stop'; break; }
  }
  return { reason };
}

// ---- commands ---------------------------------------------------------------------

const commands = {
  configure(args) {
    if (args.i2c_addresses) config.i2c.addresses = args.i2c_addresses;
    if (args.i2c_nack_after !== undefined) config.i2c.nackAfter = args.i2c_nack_after;
    if (args.timer_start_us !== undefined) config.timerStartUs = args.timer_start_us;
    if (args.jumpers !== undefined) config.jumpers = args.jumpers;
    if (args.pio_fast_forward !== undefined) fastForward = !!args.pio_fast_forward;
    if (args.gc_watch !== undefined) {
      gcWatch = args.gc_watch;        // [gc_collect_start, gc_collect_end, gc_mark_subtree, gc_alloc] or null
      gcStats = { collections: 0, rescanned: 0, rescan_marks: 0 };
      gcEndMarks = -1;
      gcSpans = [];
      gcReturn = -1;
      gcAsked = 0;
    }
    return {};
  },
  boot(args) {
    bootrom = null;
    chip = null;
    baseNs = 0;
    edges = [];
    for (const [pin, level] of args.pins || []) pinLevels.set(pin, level);
    boot(args);
    return {};
  },
  reset(args) {
    out.resets.push([now(), args.why || 'power']);
    boot({});
    return {};
  },
  run(args) { return run(args); },
  pins(args) {
    for (const [pin, level] of args.set || []) setPin(pin, level);
    if (args.edges && args.edges.length) {
      for (const e of args.edges) edges.push(e);
      edges.sort((a, b) => a[0] - b[0]);
      scheduleEdges();
    }
    return { pending: edges.length };
  },
  serial(args) {
    for (let i = 0; i < args.data.length; i++) serialQueue.push(args.data.charCodeAt(i) & 0xff);
    if (pendingRead && serialQueue.length) {
      const size = pendingRead;
      pendingRead = 0;
      sendSerial(size);
    }
    return { queued: serialQueue.length };
  },
  read_flash(args) {
    writeFileSync(args.path, chip.flash.subarray(args.offset, args.offset + args.size));
    return {};
  },
  read_mem(args) {
    const bytes = [];
    for (let i = 0; i < args.size; i++) bytes.push(chip.readUint8(args.addr + i));
    return { hex: Buffer.from(bytes).toString('hex') };
  },
  gc_stats() {
    const r = { ...gcStats };
    if (gcEndMarks > 0) {             // a collection rescanning as the run stopped
      r.rescanned++;
      r.rescan_marks += gcEndMarks;
    }
    r.spans = gcSpans;                // (a collection going on as the run stopped: end -1)
    return r;
  },
  gpio() {
    const pins = chip.gpio.map((p) => [p.outputEnable ? 1 : 0, p.outputValue ? 1 : 0, p.inputValue ? 1 : 0,
      p.functionSelect, p.pullupEnabled ? 1 : 0]);
    return { pins };
  },
  quit() { setImmediate(() => process.exit(0)); return {}; },
};

// ---- for a driver that imports this module (link.mjs) -------------------------------

export const hooks = { onBoot: null };
export { commands, now, setPin };
export const state = () => ({ chip, clock, pinLevels, serialWaiting: out.serial.length, resets: out.resets.length });

// fn(arg) at guest time ns of this chip (at once, if ns has passed), in order with the
// scheduled pin edges. A reset keeps it (the wire is still there); a boot command drops it.
export function at(ns, fn, arg) {
  let i = edges.length;
  while (i > 0 && edges[i - 1][0] > ns) i--;
  edges.splice(i, 0, [ns, fn, arg]);
  if (i === 0) scheduleEdges();
}

// The events since the last call, as a reply carries them.
export function takeEvents(obj) {
  if (chip) {
    obj.t = now();
    if (out.serial.length) obj.serial = out.serial.join('');
    if (out.i2c.length) obj.i2c = out.i2c;
    if (out.pwm.length) obj.pwm = out.pwm;
    if (out.resets.length) obj.resets = out.resets;
    if (out.flash.length) obj.flash = out.flash;
  }
  out.serial = []; out.i2c = []; out.pwm = []; out.resets = []; out.flash = [];
  return obj;
}

function reply(obj) {
  process.stdout.write(JSON.stringify(takeEvents(obj)) + '\n');
}

function serve() {
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    reply({ id: null, error: 'bad request: ' + line.slice(0, 80) });
    return;
  }
  const f = commands[msg.cmd];
  if (!f) { reply({ id: msg.id, error: 'unknown command ' + msg.cmd }); return; }
  if (!chip && !['boot', 'configure', 'quit'].includes(msg.cmd)) {
    reply({ id: msg.id, error: 'not booted' });
    return;
  }
  try {
    reply(Object.assign({ id: msg.id, ok: true }, f(msg)));
  } catch (e) {
    const where = chip ? ' (pc 0x' + (chip.core.PC >>> 0).toString(16) + ')' : '';
    reply({ id: msg.id, error: String(e && e.message || e).split('\n')[0] + where });
  }
});
rl.on('close', () => process.exit(0));
}

const isMain = process.argv[1] && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
if (isMain) serve();
