// One WebSocket to the gateway (docs/client-protocol.md): commands with ids,
// replies matched to them, events handed to onEvent, automatic reconnect.

const PAGE = Math.random().toString(36).slice(2, 8);
// How many times a command refused with ``busy`` is sent again.
const BUSY_RETRIES = 3;

export class Conn {
  /**
   * @param {string} url ws(s)://host/ws
   * @param {{onEvent: Function, onOpen: Function, onClose: Function}} hooks
   */
  constructor(url, hooks) {
    this.url = url;
    this.hooks = hooks;
    this.ws = null;
    this.n = 0;
    this.pending = new Map();
    this.retry = 0;
    this.stopped = false;
    this.offset = 0; // server clock - local clock, ms
  }

  connect() {
    this.stopped = false;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => { this.retry = 0; this.hooks.onOpen(); };
    ws.onmessage = (m) => {
      let msg;
      try { msg = JSON.parse(m.data); } catch { return; }
      if (msg.type === "reply") {
        const p = this.pending.get(msg.id);
        if (p) { this.pending.delete(msg.id); p(msg); }
      } else {
        this.hooks.onEvent(msg);
      }
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      for (const p of this.pending.values()) p({ ok: false, error: "disconnected" });
      this.pending.clear();
      const again = !this.stopped && e.code !== 4001;
      this.hooks.onClose(e.code, again);
      if (again) {
        // Capped exponential backoff with full jitter: a gateway that
        // restarts is not met by all its clients at the same moment.
        const wait = Math.random() * Math.min(5000, 400 * 2 ** this.retry++);
        setTimeout(() => { if (!this.stopped && !this.ws) this.connect(); }, wait);
      }
    };
  }

  /** Drop the connection as a network failure would (reconnects). */
  drop() { if (this.ws) this.ws.close(); }

  get open() { return this.ws !== null && this.ws.readyState === WebSocket.OPEN; }

  /**
   * Send a command; resolves with its reply ({ok, ...} or {ok: false, error}).
   * A ``busy`` refusal (the gateway past its headroom) is tried again after
   * its ``retry_after_ms``, with jitter, up to BUSY_RETRIES times.
   */
  async call(cmd, args = {}) {
    for (let attempt = 0; ; attempt++) {
      const r = await this.once(cmd, args);
      if (r.error !== "busy" || attempt >= BUSY_RETRIES || this.stopped) return r;
      const wait = (r.retry_after_ms || 1000) * (0.5 + Math.random());
      await new Promise((done) => setTimeout(done, wait));
    }
  }

  /** Send a command once. */
  once(cmd, args) {
    if (!this.open) return Promise.resolve({ ok: false, error: "disconnected" });
    // String ids, unique per page load: an ``act`` id is the table's
    // de-duplication key, so ids must not repeat after a reload.
    const id = `${PAGE}.${++this.n}`;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, cmd, ...args }));
    });
  }

  /** Measure the server clock (``ping``) so that deadlines count down right. */
  async sync() {
    const t0 = Date.now();
    const r = await this.call("ping");
    const t1 = Date.now();
    if (r.ok && typeof r.pong === "number") this.offset = r.pong - (t0 + t1) / 2;
  }

  now() { return Date.now() + this.offset; }
}
