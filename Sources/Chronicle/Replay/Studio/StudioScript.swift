extension StudioTemplate {
    /// The page's script: reads the JSON blocks lazily (a chunk is parsed when
    /// a view needs it), folds change sets from the nearest snapshot, and
    /// builds every view with DOM calls and `textContent`, never markup, so
    /// nothing in a journal is ever parsed as HTML.
    ///
    /// The URL fragment holds what is shown (`#v=3&object=Person/1&diff=2..4`),
    /// so a link, a test or a bookmark opens the page on one view.
    static let script: StaticString = #"""
    <script>
    "use strict";
    (function () {
    const $ = (id) => document.getElementById(id);
    function block(id) { const e = $(id); return e ? JSON.parse(e.textContent) : null; }
    const meta = block("meta");
    const FIRST = meta.first, LAST = meta.last, C = meta.chunk, BASE = FIRST - 1;
    const NUMERIC = { int: 1, int8: 1, int16: 1, int32: 1, int64: 1, float: 1, double: 1 };

    // ---- DOM helpers: text only, never markup ----
    function el(tag, attrs, ...children) {
      const node = document.createElement(tag);
      if (attrs) for (const name in attrs) {
        const value = attrs[name];
        if (value === undefined || value === null || value === false) continue;
        if (name === "onclick") node.addEventListener("click", value);
        else node.setAttribute(name, value === true ? "" : String(value));
      }
      for (const child of children) add(node, child);
      return node;
    }
    function add(node, child) {
      if (child === null || child === undefined || child === false) return;
      if (Array.isArray(child)) { for (const c of child) add(node, c); return; }
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
    function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

    // ---- Lazily parsed blocks, a few kept ----
    function cache(limit) {
      const map = new Map();
      return function (key, make) {
        if (map.has(key)) { const v = map.get(key); map.delete(key); map.set(key, v); return v; }
        const v = make();
        map.set(key, v);
        if (map.size > limit) map.delete(map.keys().next().value);
        return v;
      };
    }
    const summaryCache = cache(48), changeCache = cache(48), snapshotCache = cache(3);
    function chunkOf(v) { return Math.floor((v - FIRST) / C); }
    function summaries(i) {
      return summaryCache(i, () => {
        const s = block("s" + i);
        let t = s.t; s.times = s.c.map((c) => (t += c[0]));
        return s;
      });
    }
    function commit(v) {
      if (v < FIRST || v > LAST) return null;
      const i = chunkOf(v), s = summaries(i), c = s.c[v - FIRST - i * C];
      return { version: v, time: s.times[v - FIRST - i * C], label: c[1] < 0 ? null : s.l[c[1]],
               metadata: c[2] < 0 ? [] : s.m[c[2]], events: c[3], kinds: c[4], types: c[5], props: c[6] };
    }
    function changesOf(v) { const i = chunkOf(v); return changeCache(i, () => block("e" + i))[v - FIRST - i * C]; }

    // ---- States: the nearest snapshot, then the change sets after it ----
    function snapshotAtOrBefore(v) {
      const list = meta.snapshots; let lo = 0, hi = list.length - 1, found = -1;
      while (lo <= hi) { const mid = (lo + hi) >> 1; if (list[mid] <= v) { found = mid; lo = mid + 1; } else hi = mid - 1; }
      return found < 0 ? null : list[found];
    }
    function loadSnapshot(sv) {
      return snapshotCache(sv, () => {
        const k = block("k" + sv);
        return { version: k.v, schema: k.s, tables: k.o.map((rows) => new Map(rows.map((r) => [r[0], r[1]]))) };
      });
    }
    function emptyState(v) { return { version: v, schema: [], tables: [] }; }
    function copy(state) { return { version: state.version, schema: state.schema, tables: state.tables.map((t) => new Map(t)) }; }
    let cursor = null, cursorBase = null;
    // The state at version v, a copy the caller may keep. O(state + commits since the snapshot).
    function stateAt(v) {
      const sv = snapshotAtOrBefore(v);
      if (sv === null) return emptyState(v);
      if (!(cursor && cursorBase === sv && cursor.version <= v)) { cursor = copy(loadSnapshot(sv)); cursorBase = sv; }
      for (let u = cursor.version + 1; u <= v; u++) apply(cursor, changesOf(u));
      cursor.version = v;
      return copy(cursor);
    }
    function apply(state, ch) {
      if (!ch) return;
      for (const [t, k, values] of ch[0]) state.tables[t].set(k, values);
      for (const [t, k, deltas] of ch[1]) {
        const row = state.tables[t].get(k).slice();
        for (const d of deltas) row[d[0]] = d[2];
        state.tables[t].set(k, row);
      }
      for (const [t, k] of ch[2]) state.tables[t].delete(k);
    }
    function tableNamed(state, name) { return state.schema.findIndex((t) => t.n === name); }

    // ---- Values as text and as nodes ----
    function isLong(v) { return v !== null && typeof v === "object" && !Array.isArray(v) && "s" in v; }
    function scalarText(v, type, quote) {
      if (v === null) return "nil";
      if (isLong(v)) return (quote ? JSON.stringify(v.s) : v.s) + "… (" + v.n + " characters)";
      if (typeof v === "object" && "d" in v) return "<" + v.d + " bytes" + (v.x ? " " + v.x + (v.d > v.x.length / 2 ? "…" : "") : "") + ">";
      if (type === "date" && typeof v === "number") return new Date(v * 1000).toISOString();
      if (type === "string" || type === "url") return quote ? JSON.stringify(v) : String(v);
      return String(v);
    }
    // A value as plain text (history, diffs, filters, sorting).
    function valueText(state, v, p, quote) {
      const [, type, objectType, collection] = p;
      const one = (x) => type === "object" ? linkText(state, objectType, x) : scalarText(x, type, quote);
      if (collection === "list" || collection === "set") {
        if (!Array.isArray(v)) return String(v);
        return (collection === "set" ? "{" : "[") + v.map(one).join(", ") + (collection === "set" ? "}" : "]");
      }
      if (collection === "map") return Array.isArray(v) ? "[" + v.map((e) => JSON.stringify(e[0]) + ": " + one(e[1])).join(", ") + "]" : String(v);
      return one(v);
    }
    function linkText(state, typeName, key) {
      if (key === null) return "nil";
      const t = state ? tableNamed(state, typeName) : -1;
      if (t >= 0 && state.schema[t].e) {
        const row = state.tables[t].get(key);
        if (row) return "{" + state.schema[t].p.map((p, i) => p[0] + ": " + valueText(state, row[i], p, true)).join(", ") + "}";
      }
      return typeName + "#" + key;
    }
    // A value as a node: links that select their target, embedded objects expanded.
    function valueNode(state, v, p, depth) {
      const [, type, objectType, collection] = p;
      const one = (x) => {
        if (type !== "object") {
          const cls = x === null ? "null" : NUMERIC[type] ? "num" : "str";
          return el("span", { class: cls }, scalarText(x, type, false));
        }
        if (x === null) return el("span", { class: "null" }, "nil");
        const t = tableNamed(state, objectType);
        if (t >= 0 && state.schema[t].e && depth < 4) {
          const row = state.tables[t].get(x);
          if (row) return el("span", { class: "emb" }, "{", state.schema[t].p.map((q, i) => [i ? ", " : "", q[0] + ": ", valueNode(state, row[i], q, depth + 1)]), "}");
        }
        return el("a", { class: "link", href: "#", "data-target": objectType + "/" + x, onclick: (e) => { e.preventDefault(); selectObject(objectType, x); } }, objectType + "#" + x);
      };
      if ((collection === "list" || collection === "set") && Array.isArray(v)) {
        const open = collection === "set" ? "{" : "[", close = collection === "set" ? "}" : "]";
        const shown = v.slice(0, 50);
        return el("span", null, open, shown.map((x, i) => [i ? ", " : "", one(x)]), v.length > 50 ? ", … " + (v.length - 50) + " more" : "", close);
      }
      if (collection === "map" && Array.isArray(v)) {
        return el("span", null, "[", v.slice(0, 50).map((e, i) => [i ? ", " : "", JSON.stringify(e[0]) + ": ", one(e[1])]), v.length > 50 ? ", …" : "", "]");
      }
      return one(v);
    }
    function sortKey(v, p) {
      if (v === null) return [0, 0];
      if (p[3] !== "none") return [2, JSON.stringify(v)];
      if (typeof v === "number") return [1, v];
      if (typeof v === "boolean") return [1, v ? 1 : 0];
      return [2, typeof v === "string" ? v : JSON.stringify(v)];
    }
    function compareKeys(a, b) { return a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0); }
    function count(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
    function timeText(ms) { return new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC"); }
    function objectName(type, key, state) {
      const t = state ? tableNamed(state, type) : -1;
      const row = t >= 0 ? state.tables[t].get(key) : null;
      const pk = t >= 0 ? state.schema[t].p.findIndex((p) => p[5]) : -1;
      return type + "#" + key + (row && pk >= 0 ? " (" + state.schema[t].p[pk][0] + " " + scalarText(row[pk], state.schema[t].p[pk][1], true) + ")" : "");
    }

    // ---- What is shown, kept in the URL fragment ----
    const view = { v: LAST, object: null, diff: null, label: "", type: "", prop: "", sort: {}, filter: {}, limit: {} };
    function readFragment() {
      const params = new URLSearchParams(location.hash.slice(1));
      const v = Number(params.get("v"));
      view.v = params.has("v") && Number.isFinite(v) ? Math.max(BASE, Math.min(LAST, Math.floor(v))) : LAST;
      const o = params.get("object");
      if (o && o.lastIndexOf("/") > 0) { const at = o.lastIndexOf("/"); view.object = { type: o.slice(0, at), key: Number(o.slice(at + 1)) }; } else view.object = null;
      const d = /^(\d+)\.\.(\d+)$/.exec(params.get("diff") || "");
      view.diff = d ? [Math.min(Number(d[1]), LAST), Math.min(Number(d[2]), LAST)] : null;
      view.label = params.get("label") || ""; view.type = params.get("type") || ""; view.prop = params.get("prop") || "";
    }
    function writeFragment() {
      const params = new URLSearchParams();
      params.set("v", view.v);
      if (view.object) params.set("object", view.object.type + "/" + view.object.key);
      if (view.diff) params.set("diff", view.diff[0] + ".." + view.diff[1]);
      if (view.label) params.set("label", view.label);
      if (view.type) params.set("type", view.type);
      if (view.prop) params.set("prop", view.prop);
      history.replaceState(null, "", "#" + params.toString());
    }

    // ---- Timeline ----
    const slider = $("slider");
    function renderTimeline() {
      slider.value = view.v;
      $("version").textContent = view.v;
      const list = clear($("commits"));
      const from = Math.max(FIRST, Math.min(view.v - 10, LAST - 20)), to = Math.min(LAST, from + 20);
      if (BASE === 0 && from === FIRST) list.appendChild(el("li", { "data-version": 0, class: view.v === 0 ? "current" : null, onclick: () => go(0) },
        el("span", { class: "v" }, "0"), el("span", { class: "time" }, ""), el("span", { class: "nolabel" }, "(empty)"), el("span", { class: "hint" }, "before the first commit")));
      for (let v = from; v <= to; v++) {
        const c = commit(v);
        list.appendChild(el("li", { "data-version": v, class: v === view.v ? "current" : null, onclick: () => go(v) },
          el("span", { class: "v" }, String(v)), el("span", { class: "time" }, timeText(c.time).replace(" UTC", "")),
          c.label === null ? el("span", { class: "nolabel" }, "—") : el("span", { class: "label" }, c.label),
          el("span", { class: "hint" }, eventsText(c) + (c.metadata.length ? " · " + c.metadata.map((m) => m[0] + "=" + m[1]).join(" ") : ""))));
      }
      const current = list.querySelector("li.current");
      if (current) list.scrollTop = current.offsetTop - (list.clientHeight - current.offsetHeight) / 2;
    }
    function eventsText(c) {
      const parts = [];
      for (let i = 0; i < c.kinds.length; i += 2) parts.push(meta.kinds[c.kinds[i]] + (c.kinds[i + 1] > 1 ? " ×" + c.kinds[i + 1] : ""));
      return c.events + " event" + (c.events === 1 ? "" : "s") + (parts.length ? ": " + parts.join(", ") : "");
    }

    // ---- The commit at the selected version ----
    function renderCommit(state, before) {
      const box = clear($("commit"));
      $("commit-version").textContent = view.v;
      const c = commit(view.v);
      if (!c) { box.appendChild(el("p", { class: "empty" }, view.v === 0 ? "Version 0: the empty store, before the first commit." : "History starts after version " + BASE + " (the journal was compacted).")); return; }
      const kinds = el("span", { class: "kinds" });
      for (let i = 0; i < c.kinds.length; i += 2) kinds.appendChild(el("span", null, meta.kinds[c.kinds[i]] + " ×" + c.kinds[i + 1]));
      box.appendChild(el("dl", { class: "kv" },
        el("dt", null, "time"), el("dd", { class: "mono" }, timeText(c.time)),
        el("dt", null, "label"), el("dd", { id: "commit-label" }, c.label === null ? el("span", { class: "nolabel" }, "none") : c.label),
        c.metadata.map((m) => [el("dt", null, m[0]), el("dd", { class: "mono" }, m[1])]),
        el("dt", null, "events"), el("dd", null, String(c.events) + " ", kinds)));
      box.appendChild(changeList(changesOf(view.v), before, state));
    }
    function changeList(ch, before, after) {
      const list = el("ul", { class: "changes" });
      if (!ch) { list.appendChild(el("li", { class: "empty" }, "no change to any object")); return list; }
      const name = (state, t) => state.schema[t] ? state.schema[t].n : "table " + t;
      for (const [t, k, values] of ch[0]) list.appendChild(el("li", { class: "inserted", "data-object": name(after, t) + "/" + k }, "+ ", objectLink(name(after, t), k, after), " ", rowText(after, t, values)));
      for (const [t, k, deltas] of ch[1]) {
        const ps = after.schema[t] ? after.schema[t].p : [];
        list.appendChild(el("li", { class: "changed", "data-object": name(after, t) + "/" + k }, "~ ", objectLink(name(after, t), k, after), " ",
          deltas.map((d, i) => [i ? ", " : "", deltaNodes(ps[d[0]] || ["property " + d[0], "", null, "none"], d[1], d[2], before, after)])));
      }
      for (const [t, k, values] of ch[2]) list.appendChild(el("li", { class: "deleted", "data-object": name(before, t) + "/" + k }, "− ", name(before, t) + "#" + k, " ", rowText(before, t, values)));
      for (const line of ch[3] || []) list.appendChild(el("li", { class: "schema" }, "schema: " + line));
      return list;
    }
    function deltaNodes(p, oldValue, newValue, before, after) {
      return [p[0] + ": ", el("span", { class: "old" }, valueText(before, oldValue, p, true)), el("span", { class: "arrow" }, "→"), el("span", { class: "new" }, valueText(after, newValue, p, true))];
    }
    function rowText(state, t, values) {
      const ps = state.schema[t] ? state.schema[t].p : [];
      return "{" + values.map((v, i) => (ps[i] ? ps[i][0] : "property " + i) + ": " + valueText(state, v, ps[i] || ["", "", null, "none"], true)).join(", ") + "}";
    }
    function objectLink(type, key, state) {
      return el("a", { class: "link", href: "#", onclick: (e) => { e.preventDefault(); selectObject(type, key); } }, objectName(type, key, state));
    }

    // ---- The state: one table per type ----
    function renderState(state, changed) {
      $("state-version").textContent = view.v;
      const box = clear($("state"));
      let total = 0;
      state.schema.forEach((type, t) => {
        const rows = state.tables[t];
        total += rows.size;
        const section = el("section", { class: "type", "data-type": type.n });
        const filter = el("input", { type: "text", placeholder: "filter…", size: 14, value: view.filter[type.n] || "" });
        section.appendChild(el("h3", null, type.n, el("span", { class: "n" }, rows.size + " object" + (rows.size === 1 ? "" : "s") + (type.e ? " · embedded" : "")), filter));
        const holder = el("div");
        section.appendChild(holder);
        const draw = () => holder.replaceChildren(typeTable(state, t, changed));
        filter.addEventListener("input", () => { view.filter[type.n] = filter.value; view.limit[type.n] = 0; draw(); });
        draw();
        box.appendChild(section);
      });
      if (!state.schema.length) box.appendChild(el("p", { class: "empty" }, "No types yet at this version."));
      $("state-summary").textContent = "— " + state.schema.length + " types, " + total + " objects";
    }
    function typeTable(state, t, changed) {
      const type = state.schema[t], props = type.p;
      const sort = view.sort[type.n] || { col: -1, desc: false };
      const filter = (view.filter[type.n] || "").toLowerCase();
      let keys = Array.from(state.tables[t].keys());
      if (filter) keys = keys.filter((k) => ("#" + k + " " + state.tables[t].get(k).map((v, i) => valueText(state, v, props[i], false)).join(" ")).toLowerCase().includes(filter));
      if (sort.col >= 0) {
        const withKeys = keys.map((k) => [sortKey(state.tables[t].get(k)[sort.col], props[sort.col]), k]);
        withKeys.sort((a, b) => compareKeys(a[0], b[0]) || a[1] - b[1]);
        keys = withKeys.map((x) => x[1]);
      } else keys.sort((a, b) => a - b);
      if (sort.desc) keys.reverse();
      const limit = 100 + (view.limit[type.n] || 0);
      const header = el("tr", null, el("th", { class: sort.col === -1 ? "sorted" + (sort.desc ? " desc" : "") : null, onclick: () => resort(type.n, -1) }, "key"),
        props.map((p, i) => el("th", { title: p[1] + (p[2] ? " " + p[2] : "") + (p[3] !== "none" ? " (" + p[3] + ")" : "") + (p[5] ? ", primary key" : ""),
          class: sort.col === i ? "sorted" + (sort.desc ? " desc" : "") : null, onclick: () => resort(type.n, i) }, p[0])));
      const body = el("tbody");
      for (const k of keys.slice(0, limit)) {
        const row = state.tables[t].get(k);
        const id = type.n + "/" + k;
        const cls = view.object && view.object.type === type.n && view.object.key === k ? "selected" : changed.has(t + "/" + k) ? "changed" : null;
        body.appendChild(el("tr", { "data-object": id, class: cls },
          el("td", { class: "key" }, el("a", { class: "link", href: "#", onclick: (e) => { e.preventDefault(); selectObject(type.n, k); } }, "#" + k)),
          props.map((p, i) => el("td", { "data-property": p[0] }, valueNode(state, row[i], p, 0)))));
      }
      const wrap = el("div", null, el("div", { class: "tablewrap" }, el("table", null, el("thead", null, header), body)));
      if (keys.length > limit) wrap.appendChild(el("div", { class: "more" }, el("button", { onclick: () => { view.limit[type.n] = (view.limit[type.n] || 0) + 500; render(); } }, "show more"), " " + (keys.length - limit) + " more rows"));
      if (!keys.length) wrap.appendChild(el("p", { class: "empty" }, filter ? "No object matches the filter." : "No objects."));
      return wrap;
    }
    function resort(type, col) {
      const s = view.sort[type] || { col: -1, desc: false };
      view.sort[type] = s.col === col ? { col, desc: !s.desc } : { col, desc: false };
      render();
    }

    // ---- Primary-key search ----
    $("pk-search").addEventListener("keydown", (e) => { if (e.key === "Enter") searchKey($("pk-search").value.trim()); });
    function searchKey(text) {
      const out = clear($("pk-results"));
      if (!text) return;
      const state = stateAt(view.v), found = [];
      const direct = /^#(\d+)$/.exec(text);
      state.schema.forEach((type, t) => {
        const pk = type.p.findIndex((p) => p[5]);
        for (const [k, row] of state.tables[t]) {
          if (direct ? k === Number(direct[1]) : pk >= 0 && scalarText(row[pk], type.p[pk][1], false) === text) found.push([type.n, k]);
        }
      });
      if (!found.length) { out.textContent = "no object with primary key " + JSON.stringify(text) + " at version " + view.v; return; }
      out.appendChild(document.createTextNode(found.length + " found: "));
      found.slice(0, 20).forEach(([type, k], i) => { if (i) out.appendChild(document.createTextNode(", ")); out.appendChild(objectLink(type, k, state)); });
      if (found.length === 1) selectObject(found[0][0], found[0][1]);
    }

    // ---- One object's history, scanned chunk by chunk without blocking ----
    let historyToken = 0;
    function selectObject(type, key) { view.object = { type, key }; render(); }
    function renderObject(state) {
      const box = clear($("object")), list = clear($("history")), chart = clear($("chart"));
      if (!view.object) { $("object-name").textContent = "— click an object’s key"; return; }
      const { type, key } = view.object;
      $("object-name").textContent = objectName(type, key, state);
      $("object-panel").setAttribute("data-object", type + "/" + key);
      const t = tableNamed(state, type), row = t >= 0 ? state.tables[t].get(key) : undefined;
      if (row) box.appendChild(el("dl", { class: "kv" }, state.schema[t].p.map((p, i) => [el("dt", null, p[0]), el("dd", { "data-property": p[0] }, valueNode(state, row[i], p, 0))])));
      else box.appendChild(el("p", { class: "empty" }, "Not alive at version " + view.v + "."));
      const token = ++historyToken;
      const last = stateAt(LAST);
      const table = tableNamed(last, type), typeId = meta.types.indexOf(type);
      if (table < 0) { list.appendChild(el("li", { class: "empty" }, "The journal has no type " + JSON.stringify(type) + ".")); return; }
      const props = last.schema[table].p, entries = [];
      const status = el("li", { class: "empty" }, "reading history…");
      list.appendChild(status);
      let i = 0;
      const chunks = meta.chunkTypes.length;
      function step() {
        if (token !== historyToken) return;
        const until = Math.min(chunks, i + 20);
        for (; i < until; i++) {
          if (!meta.chunkTypes[i].includes(typeId)) continue;
          const changes = changeCache(i, () => block("e" + i));
          changes.forEach((ch, j) => {
            if (!ch) return;
            const v = FIRST + i * C + j;
            for (const c of ch[0]) if (c[0] === table && c[1] === key) entries.push({ v, kind: "created", values: c[2] });
            for (const c of ch[1]) if (c[0] === table && c[1] === key) entries.push({ v, kind: "changed", deltas: c[2] });
            for (const c of ch[2]) if (c[0] === table && c[1] === key) entries.push({ v, kind: "deleted", values: c[2] });
          });
        }
        if (i < chunks) { status.textContent = "reading history… " + Math.round(100 * i / chunks) + "%"; setTimeout(step, 0); return; }
        status.remove();
        showHistory(entries, props, last, list, chart);
      }
      step();
    }
    function showHistory(entries, props, last, list, chart) {
      if (!entries.length) list.appendChild(el("li", { class: "empty" }, "No commit touched this object."));
      for (const e of entries) {
        const c = commit(e.v);
        const head = el("span", { class: "hv", onclick: () => go(e.v) }, el("span", { class: "v" }, "v" + e.v), " ", c && c.label !== null ? el("span", { class: "label" }, c.label) : el("span", { class: "nolabel" }, "—"), " ");
        const cls = e.kind === "created" ? "inserted" : e.kind === "deleted" ? "deleted" : "changed";
        let body;
        if (e.kind === "changed") body = e.deltas.map((d, i) => [i ? ", " : "", deltaNodes(props[d[0]] || ["property " + d[0], "", null, "none"], d[1], d[2], last, last)]);
        else body = e.kind + " " + "{" + e.values.map((v, i) => (props[i] ? props[i][0] : "property " + i) + ": " + valueText(last, v, props[i] || ["", "", null, "none"], true)).join(", ") + "}";
        list.appendChild(el("li", { class: cls + (e.v === view.v ? " current" : ""), "data-version": e.v }, head, body));
      }
      drawChart(entries, props, chart);
    }
    let chosenProperty = -1;
    // A numeric property's value over the versions that changed it, as an inline SVG chart.
    function drawChart(entries, props, chart) {
      const numeric = props.map((p, i) => i).filter((i) => NUMERIC[props[i][1]] && props[i][3] === "none");
      const series = numeric.map((i) => {
        const points = [];
        for (const e of entries) {
          if (e.kind === "created") points.push([e.v, e.values[i]]);
          else if (e.kind === "changed") for (const d of e.deltas) if (d[0] === i) points.push([e.v, d[2]]);
        }
        return { i, points: points.filter((p) => typeof p[1] === "number") };
      }).filter((s) => s.points.length >= 2);
      if (!series.length) return;
      // The property picked last, else the one that changed most often.
      let chosen = series.find((s) => s.i === chosenProperty) || series.reduce((a, b) => (b.points.length > a.points.length ? b : a));
      const picker = el("div", { class: "row" }, "chart: ", series.map((s) => el("button", { "data-property": props[s.i][0], class: s === chosen ? "current" : null,
        onclick: () => { chosenProperty = s.i; clear(chart); drawChart(entries, props, chart); } }, props[s.i][0])));
      chart.appendChild(picker);
      const NS = "http://www.w3.org/2000/svg", W = 460, H = 150, L = 46, R = 10, T = 10, B = 22;
      const svg = document.createElementNS(NS, "svg");
      svg.setAttribute("viewBox", "0 0 " + W + " " + H);
      svg.setAttribute("data-property", props[chosen.i][0]);
      // The line runs on to the object's deletion, or to the last version.
      const deleted = entries.find((e) => e.kind === "deleted");
      const pts = chosen.points, vs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
      const end = deleted ? deleted.v : LAST;
      const v0 = Math.min(...vs), v1 = Math.max(end, ...vs), y0 = Math.min(...ys), y1 = Math.max(...ys);
      const x = (v) => L + (v1 === v0 ? 0.5 : (v - v0) / (v1 - v0)) * (W - L - R);
      const y = (val) => H - B - (y1 === y0 ? 0.5 : (val - y0) / (y1 - y0)) * (H - T - B);
      const node = (name, attrs, text) => { const n = document.createElementNS(NS, name); for (const a in attrs) n.setAttribute(a, attrs[a]); if (text !== undefined) n.textContent = text; svg.appendChild(n); return n; };
      node("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B });
      node("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B });
      node("text", { x: L - 4, y: T + 8, "text-anchor": "end" }, String(y1));
      node("text", { x: L - 4, y: H - B, "text-anchor": "end" }, String(y0));
      node("text", { x: L, y: H - 6 }, "v" + v0);
      node("text", { x: W - R, y: H - 6, "text-anchor": "end" }, "v" + v1);
      // A value holds until the next commit changes it: a step line.
      let d = "";
      pts.forEach((p, k) => { d += (k ? "H" + x(p[0]).toFixed(1) + "V" : "M" + x(p[0]).toFixed(1) + " ") + y(p[1]).toFixed(1); });
      d += "H" + x(end).toFixed(1);
      node("path", { class: "line", d });
      if (view.v >= v0 && view.v <= v1) node("line", { class: "now", x1: x(view.v), y1: T, x2: x(view.v), y2: H - B });
      for (const p of pts.slice(-200)) {
        const c = node("circle", { cx: x(p[0]).toFixed(1), cy: y(p[1]).toFixed(1), r: 3.5, class: p[0] === view.v ? "current" : "" });
        const title = document.createElementNS(NS, "title"); title.textContent = "v" + p[0] + ": " + p[1]; c.appendChild(title);
      }
      chart.appendChild(svg);
    }

    // ---- Diff between two versions ----
    $("diff-go").addEventListener("click", () => {
      const a = Number($("diff-from").value), b = Number($("diff-to").value);
      if (Number.isFinite(a) && Number.isFinite(b)) { view.diff = [Math.max(BASE, Math.min(a, LAST)), Math.max(BASE, Math.min(b, LAST))]; render(); }
    });
    function renderDiff() {
      const box = clear($("diff"));
      const [a, b] = view.diff || [Math.max(BASE, view.v - 1), view.v];
      $("diff-from").value = a; $("diff-to").value = b;
      if (!view.diff) { box.appendChild(el("p", { class: "hint" }, "Pick two versions and press Compare.")); return; }
      const from = stateAt(a), to = stateAt(b);
      let inserted = 0, deleted = 0, changed = 0;
      const list = el("ul", { class: "changes", "data-from": a, "data-to": b });
      const cap = 500;
      let shown = 0;
      const push = (node) => { if (shown++ < cap) list.appendChild(node); };
      const names = new Set(from.schema.map((t) => t.n).concat(to.schema.map((t) => t.n)));
      for (const name of names) {
        const ta = tableNamed(from, name), tb = tableNamed(to, name);
        const rowsA = ta >= 0 ? from.tables[ta] : new Map(), rowsB = tb >= 0 ? to.tables[tb] : new Map();
        if (ta < 0) push(el("li", { class: "schema" }, "schema: new type " + name));
        for (const [k, row] of rowsB) if (!rowsA.has(k)) { inserted++; push(el("li", { class: "inserted", "data-object": name + "/" + k }, "+ ", objectLink(name, k, to), " ", rowText(to, tb, row))); }
        for (const [k, row] of rowsA) if (!rowsB.has(k)) { deleted++; push(el("li", { class: "deleted", "data-object": name + "/" + k }, "− ", name + "#" + k, " ", rowText(from, ta, row))); }
        if (ta < 0 || tb < 0) continue;
        const pa = from.schema[ta].p, pb = to.schema[tb].p;
        for (const [k, row] of rowsB) {
          const old = rowsA.get(k);
          if (!old || old === row) continue;
          const deltas = [];
          pb.forEach((p, i) => {
            const j = pa.findIndex((q) => q[0] === p[0]);
            if (j < 0 || JSON.stringify(old[j]) !== JSON.stringify(row[i])) deltas.push([p, j < 0 ? null : old[j], row[i], j < 0]);
          });
          if (!deltas.length) continue;
          changed++;
          push(el("li", { class: "changed", "data-object": name + "/" + k }, "~ ", objectLink(name, k, to), " ",
            deltas.map((d, i) => [i ? ", " : "", d[3] ? d[0][0] + ": (new property) " + valueText(to, d[2], d[0], true) : deltaNodes(d[0], d[1], d[2], from, to)])));
        }
      }
      box.appendChild(el("p", { id: "diff-summary" }, "diff " + a + " → " + b + ": " + inserted + " inserted, " + deleted + " deleted, " + changed + " changed"));
      box.appendChild(list);
      if (shown > cap) box.appendChild(el("p", { class: "hint" }, "… and " + (shown - cap) + " more"));
    }

    // ---- Commits by label, type and property ----
    for (const name of meta.types.slice().sort()) $("f-type").appendChild(el("option", { value: name }, name));
    for (const name of meta.props.slice().sort()) $("f-prop").appendChild(el("option", { value: name }, name));
    $("f-go").addEventListener("click", () => { view.label = $("f-label").value; view.type = $("f-type").value; view.prop = $("f-prop").value; writeFragment(); findCommits(); });
    $("f-label").addEventListener("keydown", (e) => { if (e.key === "Enter") $("f-go").click(); });
    let findToken = 0;
    function findCommits() {
      const token = ++findToken, out = clear($("results")), status = $("f-status");
      const label = view.label.toLowerCase(), typeId = view.type ? meta.types.indexOf(view.type) : -1, propId = view.prop ? meta.props.indexOf(view.prop) : -1;
      $("f-label").value = view.label; $("f-type").value = view.type; $("f-prop").value = view.prop;
      if (!label && !view.type && !view.prop) { status.textContent = ""; return; }
      const chunks = meta.chunkTypes.length, cap = 500;
      let i = 0, found = 0;
      function step() {
        if (token !== findToken) return;
        const until = Math.min(chunks, i + 20);
        for (; i < until; i++) {
          if (typeId >= 0 && !meta.chunkTypes[i].includes(typeId)) continue;
          const s = summaries(i);
          s.c.forEach((c, j) => {
            if (label && (c[1] < 0 || !s.l[c[1]].toLowerCase().includes(label))) return;
            if (typeId >= 0 && !c[5].includes(typeId)) return;
            if (propId >= 0 && !c[6].includes(propId)) return;
            const v = FIRST + i * C + j;
            if (found++ < cap) out.appendChild(el("li", { class: "changed", "data-version": v, onclick: () => go(v) }, el("span", { class: "v" }, "v" + v), " ",
              c[1] < 0 ? el("span", { class: "nolabel" }, "—") : el("span", { class: "label" }, s.l[c[1]]), " ", el("span", { class: "time" }, timeText(s.times[j]))));
          });
        }
        status.textContent = (i < chunks ? "searching… " + Math.round(100 * i / chunks) + "% · " : "") + found + " commit" + (found === 1 ? "" : "s") + " found" + (found > cap ? " (first " + cap + " listed)" : "");
        if (i < chunks) setTimeout(step, 0);
      }
      step();
    }

    // ---- Putting it together ----
    function render() {
      const state = stateAt(view.v);
      const before = view.v > BASE ? stateAt(view.v - 1) : emptyState(BASE);
      const ch = view.v >= FIRST ? changesOf(view.v) : 0;
      const changed = new Set();
      if (ch) for (const part of [ch[0], ch[1]]) for (const c of part) changed.add(c[0] + "/" + c[1]);
      renderTimeline();
      renderState(state, changed);
      renderCommit(state, before);
      renderObject(state);
      renderDiff();
      writeFragment();
    }
    function go(v) { view.v = Math.max(BASE, Math.min(LAST, v)); render(); }
    slider.min = BASE; slider.max = LAST;
    slider.addEventListener("input", () => go(Number(slider.value)));
    $("prev").addEventListener("click", () => go(view.v - 1));
    $("next").addEventListener("click", () => go(view.v + 1));
    document.addEventListener("keydown", (e) => {
      const tag = e.target && e.target.tagName;
      if (tag === "INPUT" && e.target.type !== "range" || tag === "SELECT" || tag === "TEXTAREA") return;
      const steps = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1, PageUp: -100, PageDown: 100 };
      if (e.key in steps) go(view.v + steps[e.key]);
      else if (e.key === "Home") go(BASE);
      else if (e.key === "End") go(LAST);
      else return;
      e.preventDefault();
    });
    window.addEventListener("hashchange", () => { readFragment(); render(); findCommits(); });
    $("file").textContent = meta.title;
    $("commit-count").textContent = count(LAST - BASE) + " commit" + (LAST - BASE === 1 ? "" : "s") + (BASE > 0 ? " (versions " + FIRST + "…" + LAST + ")" : "");
    if (meta.problems.length) { $("problems").hidden = false; for (const p of meta.problems) $("problem-list").appendChild(el("li", null, p)); }
    // `focus=diff,object` (panels: commit, object, diff, filter) puts those panels first in their column, in that order.
    const focus = (new URLSearchParams(location.hash.slice(1)).get("focus") || "").split(",").reverse();
    for (const name of focus) { const panel = $(name + "-panel"); if (panel && panel.parentNode) panel.parentNode.prepend(panel); }
    readFragment();
    render();
    findCommits();
    document.body.setAttribute("data-ready", "true");
    // When the first view was on screen, in ms since navigation began: what the Performance article's figure measures.
    document.body.setAttribute("data-first-view-ms", Math.round(performance.now()));
    })();
    </script>

    """#
}
