// The page's thin JavaScript layer (docs/WEB.md). It loads MicroPython (WebAssembly),
// puts the app's compiled modules in its filesystem and hands Python a small bridge
// (tones, localStorage, page text). Then it owns the requestAnimationFrame loop and
// calls Python once per frame -- the interpreter's garbage collector cannot see
// WebAssembly locals, so memory is reclaimed only between calls from here -- and
// forwards keys, pointers on the pads and tab visibility as they come. Python
// decides everything: which key is which button, stamps, pause, the clock, the game.

const REDRAW = 1, FROZEN = 32, DONE = 64;   // spitweb/session.py frame() bits
const W = 128, H = 64;
const $ = (id) => document.getElementById(id);

// The interpreter is built with Emscripten assertions: its errors can be very long.
function cut(text, n = 600) {
  const s = String(text);
  return s.length > n ? s.slice(0, n) + " [...]" : s;
}

function fail(text) {
  const el = $("message");
  el.textContent = cut(text);
  el.hidden = false;
  $("loading").hidden = true;
  document.body.classList.add("failed");
}

// ---------------------------------------------------------------- sound (WebAudio)
// The piezo's square waves. The audio context starts at the first key or touch (a
// browser plays nothing before a gesture); a new tune cuts the old one off.
const audio = {
  ctx: null, out: null, playing: [],
  unlock() {
    if (this.ctx === null) {
      try {
        const Ctx = window.AudioContext || window.webkitAudioContext;
        this.ctx = new Ctx();
        this.out = this.ctx.createGain();
        this.out.gain.value = 0.06;
        this.out.connect(this.ctx.destination);
      } catch (e) {
        this.ctx = false;
      }
    }
    if (this.ctx && this.ctx.state === "suspended") this.ctx.resume();
  },
  play(text) {
    const ctx = this.ctx;
    if (!ctx || ctx.state !== "running") return;
    for (const o of this.playing) { try { o.stop(); } catch (e) { /* already over */ } }
    this.playing = [];
    const v = text.split(",").map(Number);
    let t = ctx.currentTime + 0.005;
    for (let i = 0; i + 1 < v.length; i += 2) {
      const hz = v[i], s = v[i + 1] / 1000;
      if (hz > 0) {
        const o = ctx.createOscillator();
        o.type = "square";
        o.frequency.value = hz;
        o.connect(this.out);
        o.start(t);
        o.stop(t + s);
        this.playing.push(o);
      }
      t += s;
    }
  },
};

// ---------------------------------------------------------------- storage and text
function storageOk() {
  try {
    const k = "spit-handheld/probe";
    localStorage.setItem(k, "1");
    localStorage.removeItem(k);
    return true;
  } catch (e) {
    return false;
  }
}

let finishedLine = null;
const bridge = {
  fail,
  status(text) { $("status").textContent = text; },
  finished(summary, line) {
    $("summary").textContent = summary;
    $("state").textContent = line;
    finishedLine = line;
  },
  names(a, b) { $("seat0").textContent = a; $("seat1").textContent = b; },
  tone(text) { audio.play(text); },
  store_ok: storageOk,
  store_get(key) { try { return localStorage.getItem(key); } catch (e) { return null; } },
  store_set(key, value) {
    try { localStorage.setItem(key, value); return true; } catch (e) { return false; }
  },
  store_remove(key) { try { localStorage.removeItem(key); } catch (e) { /* blocked */ } },
  random_seed() {
    const a = new Uint32Array(1);
    crypto.getRandomValues(a);
    return a[0] & 0x3fffffff;
  },
};

// ---------------------------------------------------------------- the screen
const canvas = $("screen");
const g = canvas.getContext("2d");
const oled = document.createElement("canvas");
oled.width = W; oled.height = H;
const og = oled.getContext("2d");
const image = og.createImageData(W, H);
const panel = new Uint8Array(W * H / 8);
let colours = null;

function rgb(name) {
  const m = getComputedStyle(document.documentElement).getPropertyValue(name)
    .match(/\d+/g) || ["0", "0", "0"];
  return m.slice(0, 3).map(Number);
}

// Whole device pixels per OLED pixel, so that every pixel is the same square.
function layout() {
  const dpr = window.devicePixelRatio || 1;
  const room = Math.min(innerWidth / 160, (innerHeight - 8) / 116) * dpr;
  const k = room >= 1 ? Math.floor(room) : room;
  document.documentElement.style.setProperty("--u", k / dpr + "px");
  canvas.width = Math.round(W * k);
  canvas.height = Math.round(H * k);
  canvas.style.width = canvas.width / dpr + "px";
  canvas.style.height = canvas.height / dpr + "px";
  paint();
}

function paint() {
  g.imageSmoothingEnabled = false;
  g.drawImage(oled, 0, 0, canvas.width, canvas.height);
}

// MONO_VLSB: byte (page * 128 + x), bit b is pixel (x, page * 8 + b).
function drawPanel(mod, addr) {
  if (addr % 4 === 0) {
    for (let i = 0; i < panel.length; i += 4) {
      const v = mod.getValue(addr + i, "i32");
      panel[i] = v & 255; panel[i + 1] = (v >> 8) & 255;
      panel[i + 2] = (v >> 16) & 255; panel[i + 3] = (v >>> 24) & 255;
    }
  } else {
    for (let i = 0; i < panel.length; i++) panel[i] = mod.getValue(addr + i, "i8") & 255;
  }
  const px = image.data;
  const [on, off] = colours;
  for (let page = 0; page < H / 8; page++) {
    for (let x = 0; x < W; x++) {
      const v = panel[page * W + x];
      for (let b = 0; b < 8; b++) {
        const c = (v >> b) & 1 ? on : off;
        const o = ((page * 8 + b) * W + x) * 4;
        px[o] = c[0]; px[o + 1] = c[1]; px[o + 2] = c[2]; px[o + 3] = 255;
      }
    }
  }
  og.putImageData(image, 0, 0);
  paint();
}

// ---------------------------------------------------------------- timing, for the stats
const stats = {
  loadMs: 0, frames: 0, steps: [], draws: [], times: [], fastMs: null, fastSteps: 0,
  record(t, step, draw) {
    this.frames++;
    this.times.push(t); this.steps.push(step); this.draws.push(draw);
    if (this.times.length > 600) {
      this.times.splice(0, 300); this.steps.splice(0, 300); this.draws.splice(0, 300);
    }
  },
  summary() {
    const n = this.steps.length;
    const mean = (a) => a.length ? a.reduce((x, y) => x + y, 0) / a.length : 0;
    const p95 = (a) => a.length ? [...a].sort((x, y) => x - y)[Math.floor(a.length * 0.95)] : 0;
    const span = n > 1 ? this.times[n - 1] - this.times[0] : 0;
    return {
      loadMs: this.loadMs, frames: this.frames,
      fps: span > 0 ? (n - 1) * 1000 / span : 0,
      stepMeanMs: mean(this.steps), stepP95Ms: p95(this.steps), drawMeanMs: mean(this.draws),
      fastMs: this.fastMs, fastSteps: this.fastSteps,
      crossOriginIsolated: !!window.crossOriginIsolated,
    };
  },
};

// ---------------------------------------------------------------- loading
function base64Bytes(text) {
  const s = atob(text.replace(/\s+/g, ""));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

// spit.html carries everything inline; the site fetches its files.
async function assets() {
  const wasm = $("spit-wasm"), mods = $("spit-modules");
  if (wasm && mods) {
    const blob = new Blob([base64Bytes(wasm.textContent)], { type: "application/wasm" });
    return { url: URL.createObjectURL(blob), modules: JSON.parse(mods.textContent) };
  }
  let r;
  try {
    r = await fetch("modules.json");
  } catch (e) {
    throw new Error("cannot load the game's files from this address" +
      (location.protocol === "file:" ? ": open spit.html instead (it runs from a file), " +
        "or serve this folder with `make web-serve`" : ": " + e));
  }
  if (!r.ok) throw new Error("cannot load modules.json: HTTP " + r.status);
  return { url: new URL("micropython.wasm", location.href).href, modules: await r.json() };
}

async function boot() {
  const t0 = performance.now();
  if (typeof globalThis.loadMicroPython !== "function") {
    fail("The MicroPython interpreter did not load (micropython.mjs).");
    return;
  }
  colours = [rgb("--oled-on"), rgb("--oled-off")];
  layout();
  const { url, modules } = await assets();
  const errors = [];
  const mp = await globalThis.loadMicroPython({
    url, linebuffer: true,
    stdout: (line) => console.log(line),
    stderr: (line) => { errors.push(line); console.error(cut(line)); },
  });
  for (const [path, b64] of Object.entries(modules)) {
    const full = "/lib/" + path;
    mp.FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
    mp.FS.writeFile(full, base64Bytes(b64));
  }
  const web = mp.pyimport("spitweb.session").start(bridge, location.search, performance.now());
  stats.loadMs = performance.now() - t0;
  $("loading").hidden = true;
  const mod = mp._module;
  // The picture: the panel, or with player 1's half upright (spitweb/session.py).
  const addr = web.error === null ? web.picture_address() : 0;
  const redraw = () => drawPanel(mod, addr);
  window.spit = {
    ready: true,
    error: () => web.error,
    debug: () => JSON.parse(web.debug_json()),
    replayText: () => web.replay_text(),
    panelHex: () => web.panel_hex(),
    pictureHex: () => web.picture_hex(),
    stats: () => stats.summary(),
    state: () => finishedLine,
    stateNow: () => web.state_line(),
    heap: () => web.heap_bytes(),
  };
  if (web.error !== null) return;
  wire(web, redraw);
  if (new URLSearchParams(location.search).get("stats") === "1") $("stats").hidden = false;
  if (web.fast) runFast(web, redraw); else runLive(web, redraw);
}

function runFast(web, redraw) {
  const t0 = performance.now();
  const batch = () => {
    let done, flags;
    try {
      done = web.run_fast(120);
      flags = web.frame(0);
    } catch (e) {
      fail("internal error: " + e.message);
      return;
    }
    if (flags & REDRAW) redraw();
    if (done) {
      stats.fastMs = performance.now() - t0;
      stats.fastSteps = web.steps;
      return;
    }
    setTimeout(batch, 0);
  };
  batch();
}

function runLive(web, redraw) {
  const pads = document.querySelectorAll(".pad-button");
  const overlay = $("overlay");
  const statsEl = $("stats");
  let lastLit = -1, lastStats = 0;
  const tick = () => {
    const t0 = performance.now();
    let flags;
    try {
      flags = web.frame(t0);
    } catch (e) {
      fail("internal error: " + e.message);
      return;
    }
    const t1 = performance.now();
    if (flags & REDRAW) redraw();
    const lit = (flags >> 1) & 15;
    if (lit !== lastLit) {
      lastLit = lit;
      for (const el of pads) {
        const bit = 2 * Number(el.dataset.player) + (el.dataset.button === "A" ? 0 : 1);
        el.classList.toggle("lit", ((lit >> bit) & 1) === 1);
      }
    }
    overlay.hidden = !(flags & FROZEN);
    stats.record(t0, t1 - t0, performance.now() - t1);
    if (!statsEl.hidden && t0 - lastStats > 500) {
      lastStats = t0;
      const s = stats.summary();
      statsEl.textContent = `${s.fps.toFixed(1)} fps  step ${s.stepMeanMs.toFixed(3)} ms ` +
        `(p95 ${s.stepP95Ms.toFixed(3)})  draw ${s.drawMeanMs.toFixed(3)} ms`;
    }
    if (!(flags & DONE)) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

// ---------------------------------------------------------------- input
function wire(web, redraw) {
  const now = () => performance.now();
  const guarded = (f) => (e) => {
    try { f(e); } catch (err) { fail("internal error: " + err.message); }
  };
  const key = (down) => guarded((e) => {
    audio.unlock();
    if (e.ctrlKey || e.metaKey || e.altKey) return;       // the browser's shortcuts
    if (web.key(e.code, down, e.repeat, e.timeStamp, now())) e.preventDefault();
  });
  addEventListener("keydown", key(true));
  addEventListener("keyup", key(false));
  addEventListener("blur", guarded(() => web.blur(now())));
  document.addEventListener("visibilitychange",
    guarded(() => web.visibility(document.hidden, now())));
  for (const el of document.querySelectorAll(".pad-button")) {
    const p = Number(el.dataset.player), b = el.dataset.button;
    el.addEventListener("pointerdown", guarded((e) => {
      audio.unlock();
      e.preventDefault();
      try { el.setPointerCapture(e.pointerId); } catch (err) { /* a synthetic pointer */ }
      web.pad(p, b, true, e.pointerId, e.timeStamp, now());
    }));
    const up = guarded((e) => web.pad(p, b, false, e.pointerId, e.timeStamp, now()));
    el.addEventListener("pointerup", up);
    el.addEventListener("pointercancel", up);
    el.addEventListener("lostpointercapture", up);
    el.addEventListener("contextmenu", (e) => e.preventDefault());
  }
  addEventListener("resize", layout);
  // Both halves upright, for two players side by side at one screen; off (the
  // handheld's own view, player 1's half facing them) suits a tablet lying flat.
  const upright = $("upright");
  const showUpright = (on) => {
    upright.checked = on;
    $("device").classList.toggle("upright", on);
  };
  showUpright(web.upright);
  upright.addEventListener("change", guarded(() => {
    web.set_upright(upright.checked);
    showUpright(upright.checked);
    redraw();
  }));
  $("fullscreen").addEventListener("click", () => {
    const d = document.documentElement;
    if (document.fullscreenElement) document.exitFullscreen();
    else if (d.requestFullscreen) d.requestFullscreen().catch(() => {});
  });
  const download = (text, type, name) => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type }));
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  $("save-replay").addEventListener("click", guarded(() => {
    const text = web.replay_text();
    if (text === null) { bridge.status("No game to save yet."); return; }
    download(text, "text/plain", "spit-replay.txt");
  }));
  $("lab-csv").addEventListener("click", guarded(() => {
    const text = web.lab_csv();
    if (text === null) { bridge.status("No reaction lab runs saved yet."); return; }
    download(text, "text/csv", "spit-lab.csv");
  }));
  $("open-replay").addEventListener("change", async (e) => {
    const f = e.target.files[0];
    if (f) location.search = "?replay=" + encodeURIComponent(await f.text());
  });
}

boot().catch((e) => fail("The game could not start: " + (e && e.message ? e.message : e)));
