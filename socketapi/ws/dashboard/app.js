// orcr web dashboard (docs/dashboard.md). Plain script, no build step, served from the
// binary. Three connections to the server, all same-origin and authenticated by the
// session cookie:
//   - the fleet feed, GET /dashboard/ws: watch.open's frames (its response with the
//     snapshot, then one event frame per event), folded into a model the way
//     socketapi/watch.go's Model does;
//   - the open agent's stream, GET /agents/<uuid>/ws (docs/remote.md): its session log,
//     and the approve/deny client frames;
//   - the actions, POST /dashboard/api/send and /kill: answered with the CLI's --json
//     envelope, whose error code is shown as it is; and POST /dashboard/api/signout,
//     which ends this browser's session (the server closes its connections too).
// Everything from the server is put into the page as text (textContent), never as HTML.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const LOG_WINDOW = 300; // log entries replayed when an agent is opened

  // ---- the fleet model (socketapi/watch.go Model) ----

  const fleet = { seq: 0, agents: new Map(), loops: new Map() };

  function resetFleet(snap) {
    fleet.seq = snap.snapshot_seq;
    fleet.agents = new Map((snap.agents || []).map((a) => [a.uuid, a]));
    fleet.loops = new Map((snap.loops || []).map((l) => [l.uuid, l]));
  }

  // shiftQueue moves every queued row behind position after by delta (queue positions
  // are derived, docs/protocol.md §4.3).
  function shiftQueue(after, delta) {
    for (const q of fleet.agents.values()) {
      if (q.status === 'queued' && q.queue_position != null && q.queue_position > after) {
        q.queue_position += delta;
      }
    }
  }

  function applyAgent(a) {
    const old = fleet.agents.get(a.uuid);
    if (old && old.status === 'queued' && old.queue_position != null && a.status !== 'queued') {
      shiftQueue(old.queue_position, -1);
    }
    if (a.status === 'ended') {
      fleet.agents.delete(a.uuid);
      return;
    }
    if (a.status === 'queued' && (!old || old.status !== 'queued') && a.queue_position != null) {
      shiftQueue(a.queue_position - 1, +1);
    }
    fleet.agents.set(a.uuid, a);
  }

  function applyLoop(l) {
    if (l.status !== 'active' && l.status !== 'paused') {
      fleet.loops.delete(l.uuid);
      return;
    }
    const cur = fleet.loops.get(l.uuid) || { runs: [] };
    fleet.loops.set(l.uuid, Object.assign({}, cur, l));
  }

  function applyRun(r) {
    const l = fleet.loops.get(r.loop_uuid);
    if (!l) return;
    l.runs = (l.runs || []).filter((x) => x.uuid !== r.uuid);
    if (r.status === 'running' || r.status === 'stopping') l.runs.push(r);
  }

  function applyEvent(ev) {
    if (ev.agent) applyAgent(ev.agent);
    if (ev.loop) applyLoop(ev.loop);
    if (ev.run) applyRun(ev.run);
  }

  // ---- helpers ----

  function wsURL(path) {
    return (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + path;
  }

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'style') e.style.cssText = v;
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children) {
      if (c != null) e.append(c);
    }
    return e;
  }

  let toastTimer = 0;
  function toast(text, kind) {
    const t = $('toast');
    t.textContent = text;
    t.dataset.kind = kind || 'info';
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, kind === 'error' ? 8000 : 3000);
  }

  // errorText is how a protocol error is shown: its code, its message, and its reason
  // or cause when it has one (docs/protocol.md §9).
  function errorText(e) {
    const d = e.details || {};
    const why = d.reason || d.cause;
    return e.code + (why ? ' (' + why + ')' : '') + ': ' + (e.message || '');
  }

  // showSignedOut replaces the page with the signed-out notice and closes the page's
  // connections for good; why says how it came to that, when the page knows.
  let signedOut = false;
  function showSignedOut(why) {
    signedOut = true;
    if (why) $('signed-out-why').textContent = why;
    $('layout').hidden = true;
    $('signout').hidden = true;
    $('summary').textContent = '';
    $('toast').hidden = true;
    $('signed-out').hidden = false;
    $('conn').dataset.state = 'signed-out';
    $('conn').textContent = 'signed out';
    if (feed) feed.close();
    closeStream();
  }

  function backoff(n) {
    return Math.min(10000, 250 * 2 ** Math.min(n, 6)) * (0.5 + Math.random() / 2);
  }

  // ---- the fleet feed ----

  let feed = null;
  let feedTries = 0;

  function setConn(state, text) {
    $('conn').dataset.state = state;
    $('conn').textContent = text || state;
  }

  function openFeed() {
    const ws = new WebSocket(wsURL('/dashboard/ws'));
    feed = ws;
    ws.onmessage = (m) => {
      const f = JSON.parse(m.data);
      if (f.type === 'error') {
        if (f.code === 'unauthorized') showSignedOut();
        else toast('fleet feed: ' + f.code + ': ' + f.message, 'error');
        return;
      }
      if ('ok' in f) { // watch.open's response: the snapshot
        if (!f.ok) {
          toast('fleet feed: ' + errorText(f.error), 'error');
          return;
        }
        resetFleet(f.result.snapshot);
        feedTries = 0;
        setConn('live');
        loadQuota();
        loadHosts();
        render();
        return;
      }
      if (f.seq === 0) { // cursor_expired: take a new snapshot
        ws.close();
        return;
      }
      if (f.seq <= fleet.seq) return;
      fleet.seq = f.seq;
      applyEvent(f.event);
      if (QUOTA_EVENTS.has(f.event.kind)) loadQuota();
      render();
    };
    ws.onclose = () => {
      if (feed !== ws || signedOut) return;
      setConn('reconnecting', 'reconnecting…');
      setTimeout(openFeed, backoff(feedTries++));
    };
  }

  // ---- the tree ----

  let renderQueued = false;
  function render() {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => {
      renderQueued = false;
      renderTree();
      renderAgentHead();
    });
  }

  function rowMeta(a) {
    const bits = [];
    if (a.agent) bits.push(a.agent);
    let s = a.status;
    if (a.status === 'blocked' && a.blocked_kind) s += ' · ' + a.blocked_kind;
    if (a.status === 'queued' && a.queue_position != null) s += ' #' + a.queue_position;
    bits.push(s);
    return bits.join(' · ');
  }

  // costText is a usage sum's cost as `orcr top` shows it (docs/top.md §3): '' before
  // any turn reported usage, * when turns of a model without a price are left out.
  function costText(u) {
    if (!u || !u.turns) return '';
    const c = u.cost_usd;
    const s = c > 0 && c < 0.01 ? c.toFixed(4) : c >= 1000 ? c.toFixed(0) : c.toFixed(2);
    return '$' + s + (u.unpriced_turns ? '*' : '');
  }

  // subtreeUsage sums each agent row's usage (docs/usage.md §4) into its path and every
  // path above it: the cost of every row of the tree is its subtree's.
  function subtreeUsage(agents) {
    const sums = new Map();
    for (const a of agents) {
      if (!a.usage) continue;
      const segs = a.path.split('/');
      for (let i = 0; i <= segs.length; i++) {
        const p = i === 0 ? '' : segs.slice(0, i).join('/');
        const s = sums.get(p) || { turns: 0, cost_usd: 0, unpriced_turns: 0 };
        s.turns += a.usage.turns;
        s.cost_usd += a.usage.cost_usd;
        s.unpriced_turns += a.usage.unpriced_turns;
        sums.set(p, s);
      }
    }
    return sums;
  }

  // renderTree lays the agents out by path: each agent once, at its path; missing
  // ancestors become scope rows (as `orcr top` does, docs/top.md §2). Every row shows
  // its subtree's cost, the summary the fleet's.
  function renderTree() {
    const agents = [...fleet.agents.values()].sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : a.created_at - b.created_at);
    const paths = new Set(agents.map((a) => a.path));
    const usage = subtreeUsage(agents);
    const shown = new Set();
    const items = [];
    const counts = {};
    for (const a of agents) {
      counts[a.status] = (counts[a.status] || 0) + 1;
      const segs = a.path.split('/');
      for (let i = 1; i < segs.length; i++) {
        const p = segs.slice(0, i).join('/');
        if (shown.has(p) || paths.has(p)) continue;
        shown.add(p);
        items.push(el('li', { class: 'scope', style: '--depth:' + (i - 1), 'data-scope': p },
          segs[i - 1] + '/', el('span', { class: 'cost' }, costText(usage.get(p)))));
      }
      shown.add(a.path);
      const btn = el('button', {
        type: 'button', class: 'row', style: '--depth:' + (segs.length - 1),
        'aria-current': a.uuid === current.uuid ? 'true' : null,
      },
      el('span', { class: 'dot' }),
      el('span', { class: 'name' }, segs[segs.length - 1]),
      el('span', { class: 'meta' }, rowMeta(a)),
      el('span', { class: 'cost' }, costText(usage.get(a.path))));
      btn.addEventListener('click', () => openAgent(a.uuid));
      items.push(el('li', { 'data-uuid': a.uuid, 'data-path': a.path, 'data-status': a.status }, btn));
    }
    $('tree').replaceChildren(...items);
    $('empty').hidden = agents.length > 0;
    const total = costText(usage.get(''));
    $('summary').textContent = Object.entries(counts).map(([k, v]) => v + ' ' + k).join(' · ') +
      (total ? ' · ' + total : '');
    const loops = [...fleet.loops.values()].sort((a, b) => a.created_at - b.created_at);
    $('loops-title').hidden = loops.length === 0;
    $('loops').replaceChildren(...loops.map((l) => el('li', { 'data-loop': l.name },
      l.name + ' · ' + l.status + ' · ' + l.cadence + ((l.runs || []).length ? ' · ' + l.runs.length + ' running' : ''))));
  }

  // ---- quota windows (docs/usage.md §7) ----

  // The windows are recorded without an event of their own: the page reads them
  // (POST /dashboard/api/quota) when the feed opens, when an event says a provider's
  // pause or a warning changed, and every QUOTA_EVERY ms.
  const QUOTA_EVERY = 10000;
  const QUOTA_EVENTS = new Set(['provider.paused', 'provider.resumed', 'quota.warned']);
  let quota = [];

  // judge is api.QuotaWindow.Judge at the page's clock, without thresholds (the server
  // judged warn and paused): a window whose reset passed since reads reset, 0% used.
  function judge(w, now) {
    if (w.state === 'reset' || (w.resets_at > 0 && w.resets_at <= now)) return { ...w, used_percent: 0, state: 'reset' };
    return { ...w, state: w.state || 'ok' };
  }

  // windowLabel names a window by its length (5h, 7d), else by its name, as top does.
  function windowLabel(w) {
    const m = w.window_minutes;
    if (m > 0) return m % 1440 === 0 ? m / 1440 + 'd' : m % 60 === 0 ? m / 60 + 'h' : m + 'm';
    return { five_hour: '5h', seven_day: '7d' }[w.window] || w.window;
  }

  // remaining is the time to a reset as top shows it: 45m, 1h12m, 3d5h.
  function remaining(ms) {
    const m = Math.max(0, Math.ceil(ms / 60000));
    if (m < 60) return m + 'm';
    if (m < 1440) return Math.floor(m / 60) + 'h' + String(m % 60).padStart(2, '0') + 'm';
    return Math.floor(m / 1440) + 'd' + Math.floor((m % 1440) / 60) + 'h';
  }

  async function loadQuota() {
    if (signedOut) return;
    const res = await action('quota', {});
    if (res) {
      quota = res.quota || [];
      renderQuota();
    }
  }

  // renderQuota lists each provider's windows: used percent and time to reset, marked
  // warn (quota.warn_at) or paused (quota.pause_at), or reset.
  function renderQuota() {
    const now = Date.now();
    const by = new Map();
    for (const w of quota.map((x) => judge(x, now))) {
      const name = w.account ? w.provider + '/' + w.account : w.provider;
      if (!by.has(name)) by.set(name, []);
      by.get(name).push(w);
    }
    $('quota').replaceChildren(...[...by].map(([name, ws]) => el('li', { 'data-provider': name },
      el('span', { class: 'provider' }, name),
      ...ws.map((w) => el('span', { class: 'window', 'data-window': w.window, 'data-state': w.state },
        windowLabel(w) + ' ' + (w.state === 'reset' ? 'reset' : Math.round(w.used_percent) + '%' +
          (w.state === 'paused' ? ' paused' : '') + (w.resets_at > 0 ? ' (' + remaining(w.resets_at - now) + ')' : '')))))));
    $('quota').hidden = quota.length === 0;
  }

  // ---- the other members of the fleet (docs/dashboard.md §6.1) ----

  // Read (POST /dashboard/api/fleet) when the feed opens and every HOSTS_EVERY ms, as
  // orcr top --fleet reads them: a member that did not answer keeps the agents last
  // read of it, marked unreachable with the age of its last written view.
  const HOSTS_EVERY = 5000;
  const hosts = new Map(); // host → {reachable, error, last_seen, agents}
  let hostsError = null;

  async function loadHosts() {
    if (signedOut) return;
    const res = await action('fleet', {});
    if (!res) return;
    hostsError = res.error || null;
    const now = new Set();
    for (const m of res.members || []) {
      now.add(m.host);
      const old = hosts.get(m.host);
      hosts.set(m.host, {
        reachable: m.reachable, error: m.error, last_seen: m.last_seen,
        agents: m.reachable ? (m.agents || []) : (old ? old.agents : []),
      });
    }
    if (!hostsError) for (const h of [...hosts.keys()]) if (!now.has(h)) hosts.delete(h);
    renderHosts();
  }

  // since is the age of a time in ms as top shows it: 5s, 3m, 2h, 4d.
  function since(ms) {
    const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm';
    if (s < 86400) return Math.floor(s / 3600) + 'h';
    return Math.floor(s / 86400) + 'd';
  }

  // renderHosts lists each other member: its host, reachable or why not (with its last
  // written view's age), and its agents by path with their provider and status; an
  // agent of a member that answered has Log, and Send and Kill while it lives, which
  // read it or act on it over the fleet under that member's policy (docs/dashboard.md
  // §6.1).
  function renderHosts() {
    const names = [...hosts.keys()].sort();
    $('hosts-title').hidden = names.length === 0 && !hostsError;
    $('hosts-error').hidden = !hostsError;
    $('hosts-error').textContent = hostsError ? 'fleet: ' + errorText(hostsError) : '';
    $('hosts').replaceChildren(...names.map((name) => {
      const h = hosts.get(name);
      const state = h.reachable ? h.agents.length + ' agents'
        : 'unreachable' + (h.last_seen ? ' · seen ' + since(h.last_seen) + ' ago' : '');
      const agents = [...h.agents].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return el('li', { 'data-host': name, 'data-reachable': String(h.reachable) },
        el('span', { class: 'host' }, '⌂ ' + name),
        el('span', { class: 'host-state' }, state),
        el('ul', {}, ...agents.map((a) => hostAgentRow(name, h, a))));
    }));
  }

  function hostAgentRow(host, h, a) {
    const key = host + ':' + a.path;
    const li = el('li', { 'data-path': key },
      el('span', { class: 'host-agent' },
        key + ' · ' + a.provider + ' · ' + a.status + (a.blocked_kind ? ' · ' + a.blocked_kind : '')));
    if (!h.reachable) return li;
    const logBtn = el('button', { type: 'button', class: 'host-act', 'data-act': 'log' }, 'Log');
    logBtn.addEventListener('click', () => openHostLog(host, a.path));
    li.append(' ', logBtn);
    if (a.status === 'ended' || a.status === 'lost') return li;
    const sendBtn = el('button', { type: 'button', class: 'host-act', 'data-act': 'send' }, 'Send');
    sendBtn.addEventListener('click', () => openHostSend(host, a.path));
    const killBtn = el('button', { type: 'button', class: 'host-act danger' + (hostKill.key === key ? ' armed' : ''), 'data-act': 'kill' },
      hostKill.key === key ? 'Tap again to kill' : 'Kill');
    killBtn.addEventListener('click', () => killOnHost(host, a.path));
    li.append(' ', sendBtn, ' ', killBtn);
    return li;
  }

  // A send to another host's agent: one form below the hosts, kept open across the
  // list's re-reads.
  const hostSend = { host: '', path: '' };
  function openHostSend(host, path) {
    hostSend.host = host;
    hostSend.path = path;
    $('host-send-to').textContent = 'Send to ' + host + ':' + path;
    $('host-send').hidden = false;
    $('host-prompt').focus();
  }

  function closeHostSend() {
    hostSend.host = hostSend.path = '';
    $('host-prompt').value = '';
    $('host-send').hidden = true;
  }

  async function sendOnHost(ev) {
    ev.preventDefault();
    const prompt = $('host-prompt').value;
    if (!hostSend.host || !prompt.trim()) return;
    const btn = $('host-send-btn');
    btn.disabled = true;
    const res = await action('send', { host: hostSend.host, target: hostSend.path, prompt });
    btn.disabled = false;
    if (res) {
      toast('delivered to ' + hostSend.host + ':' + hostSend.path + ' (the agent was ' + res.delivered_while + ')');
      closeHostSend();
    }
  }

  // An agent of another host, read and not streamed: its last entries (agent.logs over
  // the fleet) or its pane's screen, when opened, on Refresh and on the Screen/Log toggle
  // (docs/dashboard.md §6.1). An answer for what is no longer shown is dropped.
  const hostLog = { host: '', path: '', screen: false };
  function openHostLog(host, path) {
    hostLog.host = host;
    hostLog.path = path;
    hostLog.screen = false;
    $('host-log-text').textContent = '';
    $('host-log').hidden = false;
    readHostLog();
  }

  function closeHostLog() {
    hostLog.host = hostLog.path = '';
    $('host-log-text').textContent = '';
    $('host-log').hidden = true;
  }

  async function readHostLog() {
    const { host, path, screen } = hostLog;
    if (!host) return;
    $('host-log-of').textContent = (screen ? 'Screen of ' : 'Log of ') + host + ':' + path;
    $('host-log-screen').textContent = screen ? 'Log' : 'Screen';
    const res = await action('logs', { host, target: path, screen });
    if (!res || hostLog.host !== host || hostLog.path !== path || hostLog.screen !== screen) return;
    $('host-log-text').textContent = screen ? (res.screen ? res.screen.text : '(no screen)') : entriesText(res.entries || []);
  }

  function entriesText(entries) {
    if (!entries.length) return '(no entries)';
    return entries.map((e) => e.role + (e.kind === 'text' ? '' : ' · ' + e.kind + (e.tool ? ' ' + e.tool : '')) +
      ': ' + e.text).join('\n\n');
  }

  // Kill asks twice here too: the first tap arms that row's button for four seconds.
  const hostKill = { key: '', timer: 0 };
  async function killOnHost(host, path) {
    const key = host + ':' + path;
    clearTimeout(hostKill.timer);
    if (hostKill.key !== key) {
      hostKill.key = key;
      hostKill.timer = setTimeout(() => { hostKill.key = ''; renderHosts(); }, 4000);
      renderHosts();
      return;
    }
    hostKill.key = '';
    renderHosts();
    const res = await action('kill', { host, target: path });
    if (!res) return;
    if (res.killed.length) toast('killed ' + res.killed.map((k) => host + ':' + k.path).join(', '));
    else toast('not killed: ' + res.skipped.map((k) => host + ':' + k.path + ' (' + k.reason + ')').join(', '), 'error');
    loadHosts();
  }

  // ---- the open agent ----

  const current = {
    uuid: '', path: '', ws: null, next: 0, tries: 0,
    closedFor: '', // what ended the stream for good (superseded, unauthorized, or ended: the log is complete)
    pending: new Map(), // call_id → approval/requested payload, until resolved
    budgetPause: null, // the standing budget/exceeded payload, until budget/resumed
  };

  function renderAgentHead() {
    if (!current.uuid) return;
    const a = fleet.agents.get(current.uuid);
    const status = a ? a.status : 'ended';
    if (a) current.path = a.path;
    $('agent-path').textContent = current.path;
    const s = $('agent-status');
    s.dataset.status = status;
    s.textContent = a ? rowMeta(a) : 'ended';
    $('agent').dataset.status = status;
  }

  function openAgent(uuid) {
    closeStream();
    const a = fleet.agents.get(uuid);
    current.uuid = uuid;
    current.path = a ? a.path : uuid;
    current.next = -1;
    current.tries = 0;
    current.pending.clear();
    current.budgetPause = null;
    $('log').replaceChildren();
    renderApprovals();
    $('stream-note').hidden = true;
    $('agent').hidden = false;
    $('layout').classList.add('detail');
    history.replaceState(null, '', '#' + uuid);
    render();
    connectStream();
  }

  function closeAgent() {
    closeStream();
    current.uuid = '';
    $('agent').hidden = true;
    $('layout').classList.remove('detail');
    history.replaceState(null, '', location.pathname);
    render();
  }

  function closeStream() {
    if (current.ws) {
      const ws = current.ws;
      current.ws = null;
      ws.close();
    }
  }

  function streamNote(text) {
    const n = $('stream-note');
    n.replaceChildren(text);
    n.hidden = !text;
  }

  function connectStream() {
    const uuid = current.uuid;
    const ws = new WebSocket(wsURL('/agents/' + uuid + '/ws'));
    current.ws = ws;
    ws.onmessage = (m) => {
      if (current.ws !== ws) return;
      const f = JSON.parse(m.data);
      if (f.seq != null) {
        onLogEntry(f);
        return;
      }
      switch (f.type) {
      case 'hello': {
        current.tries = 0;
        let from = current.next;
        if (from < 0) {
          from = Math.max(0, f.last_seq + 1 - LOG_WINDOW);
          if (from > 0) $('log').append(el('li', { class: 'minor' }, 'earlier entries not shown'));
        }
        current.next = from;
        ws.send(JSON.stringify({ type: 'subscribe', from_seq: from }));
        streamNote('');
        break;
      }
      case 'replay_truncated':
        $('log').append(el('li', { class: 'minor' }, 'entries ' + f.requested_from_seq + '–' + (f.from_seq - 1) + ' not shown'));
        current.next = f.from_seq;
        break;
      case 'error':
        onStreamError(ws, f);
        break;
      }
    };
    ws.onclose = () => {
      if (current.ws !== ws) return;
      current.ws = null;
      if (signedOut || current.closedFor) return;
      streamNote('reconnecting to the log…');
      setTimeout(() => { if (current.uuid === uuid && !current.ws) connectStream(); }, backoff(current.tries++));
    };
    current.closedFor = '';
  }

  // onStreamError shows a stream error frame (docs/remote.md §8). The ones that keep the
  // connection open answer a frame we sent (a verdict for a call already resolved is
  // stale_call); the closing ones end this view's stream.
  function onStreamError(ws, f) {
    switch (f.code) {
    case 'superseded':
      current.closedFor = f.code;
      streamNote('This agent\'s stream was opened by another client. ');
      $('stream-note').append(reopenButton());
      break;
    case 'unauthorized':
      current.closedFor = f.code;
      streamNote('Not allowed to read this agent\'s log (signed out, or the agent is gone).');
      break;
    case 'lagged':
    case 'internal':
      break; // the close follows; onclose reconnects from the next seq
    default:
      toast(f.code + ': ' + f.message, 'error');
      renderApprovals();
    }
  }

  function reopenButton() {
    const b = el('button', { type: 'button' }, 'Reopen');
    b.addEventListener('click', () => { current.closedFor = ''; streamNote(''); connectStream(); });
    return b;
  }

  function short(v, n) {
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    return s.length > n ? s.slice(0, n) + '…' : s;
  }

  // describe is how one session-log entry reads (docs/remote.md §4's table).
  function describe(e) {
    const p = e.payload || {};
    switch (e.type) {
    case 'session/created': return ['created', [p.agent, p.model, p.effort].filter(Boolean).join(' · '), true];
    case 'status/changed': return ['status', p.status + (p.blocked_kind ? ' · ' + p.blocked_kind : '') + (p.exit_reason ? ' · ' + p.exit_reason : ''), true];
    case 'turn/start': return ['turn started', 'input ' + p.input_seq + ' · ' + p.source, true];
    case 'user/message': return ['prompt', p.text];
    case 'context/injected': return ['injected', p.text];
    case 'tool/call': return ['tool call · ' + p.name, short(p.args, 400)];
    case 'tool/result': return ['tool result · ' + (p.ok ? 'ok' : 'failed'), p.text || ''];
    case 'assistant/message': return ['response', p.text];
    case 'turn/end': return ['turn ended', p.status + (p.reason ? ' · ' + p.reason : ''), true];
    case 'approval/requested': return ['approval requested · ' + p.name, short(p.args, 400)];
    case 'approval/resolved': return [p.verdict, (p.reason ? p.reason + ' · ' : '') + 'call ' + p.call_id, true];
    case 'budget/exceeded': return ['budget exceeded · ' + p.budget, p.spent + ' of ' + p.limit + ' ' + p.unit + (p.interrupted ? ' · turn cut' : '')];
    case 'budget/resumed': return ['budget resumed · ' + p.budget, 'limit ' + p.limit, true];
    case 'policy/updated': return ['policy', (p.patterns || []).join(', '), true];
    case 'model/updated': return ['model', p.role + ' → ' + p.spec, true];
    case 'session/ended': return ['ended', p.exit_reason || '', true];
    default: return [e.type, short(p, 400), true];
    }
  }

  function onLogEntry(e) {
    if (e.seq < current.next) return; // a replaced subscription's leftovers
    current.next = e.seq + 1;
    if (e.type === 'approval/requested') current.pending.set(e.payload.call_id, e.payload);
    if (e.type === 'approval/resolved') current.pending.delete(e.payload.call_id);
    if (e.type === 'turn/end' || e.type === 'session/ended') current.pending.clear();
    if (e.type === 'budget/exceeded') current.budgetPause = e.payload;
    if (e.type === 'budget/resumed' || e.type === 'session/ended') current.budgetPause = null;
    if (e.type.startsWith('budget/')) renderApprovals();
    // session/ended is the log's last entry: the server closes the stream after it.
    if (e.type === 'session/ended') current.closedFor = 'ended';
    if (e.type.startsWith('approval/') || e.type === 'turn/end' || e.type === 'session/ended') renderApprovals();
    const [kind, text, minor] = describe(e);
    const log = $('log');
    const atEnd = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
    log.append(el('li', { 'data-type': e.type, 'data-seq': e.seq, class: minor ? 'minor' : null },
      el('span', { class: 'kind' }, kind), el('span', { class: 'text' }, text)));
    if (atEnd) window.scrollTo(0, document.body.scrollHeight);
  }

  function renderApprovals() {
    const box = $('approvals');
    const items = [];
    for (const [callID, p] of current.pending) {
      const approve = el('button', { type: 'button', class: 'primary', 'data-verdict': 'approve' }, 'Approve');
      const deny = el('button', { type: 'button', class: 'danger', 'data-verdict': 'deny' }, 'Deny');
      for (const b of [approve, deny]) {
        b.addEventListener('click', () => verdict(b.dataset.verdict, callID, [approve, deny]));
      }
      items.push(el('div', { class: 'approval', 'data-call': callID },
        el('p', null, 'Allow ' + p.name + '?'),
        el('pre', null, short(p.args, 2000)),
        el('div', { class: 'actions' }, approve, deny)));
    }
    const bp = current.budgetPause;
    if (bp) {
      // Approve lifts the pause through the stream (docs/dashboard.md §4): the limit
      // becomes what is spent plus the budget's limit once more.
      const approve = el('button', { type: 'button', class: 'primary', 'data-verdict': 'approve' }, 'Approve');
      approve.addEventListener('click', () => verdict('approve', bp.pause_id, [approve]));
      items.push(el('div', { class: 'approval', 'data-call': bp.pause_id },
        el('p', null, 'Paused on budget ' + bp.budget + ': ' + bp.spent + ' of ' + bp.limit + ' ' + bp.unit + ' spent. Continue?'),
        el('div', { class: 'actions' }, approve)));
    }
    box.replaceChildren(...items);
  }

  function verdict(type, callID, buttons) {
    if (!current.ws || current.ws.readyState !== WebSocket.OPEN) {
      toast('the log is not connected; try again in a moment', 'error');
      return;
    }
    for (const b of buttons) b.disabled = true;
    current.ws.send(JSON.stringify({ type, call_id: callID }));
  }

  // ---- actions ----

  async function action(name, body) {
    let resp;
    try {
      resp = await fetch('/dashboard/api/' + name, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    } catch (err) {
      toast(name + ': the server did not answer', 'error');
      return null;
    }
    let env;
    try {
      env = await resp.json();
    } catch (err) {
      toast(name + ': HTTP ' + resp.status, 'error');
      return null;
    }
    if (resp.status === 401) {
      showSignedOut();
      return null;
    }
    if (!env.ok) {
      toast(name + ': ' + errorText(env.error), 'error');
      return null;
    }
    return env.result;
  }

  async function send(ev) {
    ev.preventDefault();
    const prompt = $('prompt').value;
    if (!current.uuid || !prompt.trim()) return;
    const btn = $('send-btn');
    btn.disabled = true;
    const res = await action('send', { target: current.uuid, prompt });
    btn.disabled = false;
    if (res) {
      $('prompt').value = '';
      toast('delivered (the agent was ' + res.delivered_while + ')');
    }
  }

  // Kill asks twice: the first tap arms the button for a few seconds.
  let killTimer = 0;
  async function kill() {
    const btn = $('kill');
    if (!btn.classList.contains('armed')) {
      btn.classList.add('armed');
      btn.textContent = 'Tap again to kill';
      killTimer = setTimeout(disarmKill, 4000);
      return;
    }
    disarmKill();
    btn.disabled = true;
    const res = await action('kill', { target: current.uuid });
    btn.disabled = false;
    if (!res) return;
    if (res.killed.length) toast('killed ' + res.killed.map((k) => k.path).join(', '));
    else toast('not killed: ' + res.skipped.map((k) => k.path + ' (' + k.reason + ')').join(', '), 'error');
  }

  // signOut ends this browser's session; the server clears the cookie and closes the
  // feed and the log. A session that was already gone (401) ends the same way.
  async function signOut() {
    const btn = $('signout');
    btn.disabled = true;
    const res = await action('signout', {});
    btn.disabled = false;
    if (res) showSignedOut('This browser is signed out of the dashboard; other signed-in browsers are not.');
  }

  function disarmKill() {
    clearTimeout(killTimer);
    const btn = $('kill');
    btn.classList.remove('armed');
    btn.textContent = 'Kill';
  }

  // ---- start ----

  $('send').addEventListener('submit', send);
  $('prompt').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.metaKey || ev.ctrlKey)) send(ev);
  });
  $('kill').addEventListener('click', kill);
  $('back').addEventListener('click', closeAgent);
  $('signout').addEventListener('click', signOut);
  $('host-send').addEventListener('submit', sendOnHost);
  $('host-send-cancel').addEventListener('click', closeHostSend);
  $('host-log-refresh').addEventListener('click', readHostLog);
  $('host-log-screen').addEventListener('click', () => { hostLog.screen = !hostLog.screen; readHostLog(); });
  $('host-log-close').addEventListener('click', closeHostLog);
  $('host-prompt').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.metaKey || ev.ctrlKey)) sendOnHost(ev);
  });
  openFeed();
  setInterval(loadQuota, QUOTA_EVERY);
  setInterval(loadHosts, HOSTS_EVERY);
  const hash = location.hash.slice(1);
  if (/^[0-9a-f-]{36}$/.test(hash)) openAgent(hash);
})();
