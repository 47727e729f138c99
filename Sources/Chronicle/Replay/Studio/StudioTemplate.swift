/// The fixed parts of a Studio page: its markup and styles. The script is
/// in ``StudioTemplate/script`` (StudioScript.swift); the journal's data goes
/// between the body and the script.
enum StudioTemplate {
    static let head: StaticString = """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">

    """

    /// `text` escaped for an HTML text node: the page's title names the journal file.
    static func escapeText(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static let style: StaticString = """
    <style>
    :root { --ink:#1d2330; --muted:#667085; --line:#e4e7ec; --soft:#f5f7fa; --accent:#3758f9; --accent-soft:#e8edff;
            --ins:#067647; --ins-soft:#e7f6ec; --del:#b42318; --del-soft:#fdecea; --chg:#b54708; --chg-soft:#fef3e2; }
    * { box-sizing: border-box; }
    body { margin:0; font:13px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif; color:var(--ink); background:#fbfcfd; }
    code, .mono, td, .val { font-family: ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace; font-size:12px; }
    header { display:flex; align-items:baseline; gap:16px; padding:10px 18px; background:#141a26; color:#fff; }
    header h1 { font-size:15px; margin:0; font-weight:600; letter-spacing:.2px; }
    header .file { color:#c8d0e0; font-family:ui-monospace,Menlo,Consolas,monospace; }
    header .count { margin-left:auto; color:#c8d0e0; }
    #problems { margin:10px 18px 0; padding:8px 12px; border:1px solid #f4b4ad; background:var(--del-soft); color:#7a1a10; border-radius:6px; }
    #problems[hidden] { display:none; }
    #problems h2 { font-size:13px; margin:0 0 4px; }
    #problems ul { margin:0; padding-left:18px; }
    .timeline { padding:10px 18px 6px; border-bottom:1px solid var(--line); background:#fff; }
    .scrub { display:flex; align-items:center; gap:10px; }
    .scrub input[type=range] { flex:1; accent-color:var(--accent); }
    .scrub .ver { font-weight:600; min-width:110px; }
    .scrub button { min-width:30px; }
    button { font:inherit; border:1px solid var(--line); background:#fff; border-radius:5px; padding:2px 8px; cursor:pointer; color:var(--ink); }
    button:hover { background:var(--soft); }
    input[type=text], input[type=number], select { font:inherit; border:1px solid #d0d5dd; border-radius:5px; padding:3px 6px; background:#fff; }
    input[type=number] { width:90px; }
    .hint { color:var(--muted); font-size:12px; }
    #commits { position:relative; list-style:none; margin:6px 0 0; padding:0; max-height:168px; overflow:auto; border:1px solid var(--line); border-radius:6px; }
    #commits li { display:grid; grid-template-columns:64px 190px minmax(120px,220px) 1fr; gap:10px; padding:2px 10px; cursor:pointer; border-bottom:1px solid var(--soft); white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
    #commits li:hover { background:var(--soft); }
    #commits li.current { background:var(--accent-soft); font-weight:600; }
    #commits li span { overflow:hidden; text-overflow:ellipsis; }
    .v { color:var(--accent); font-variant-numeric:tabular-nums; }
    .time { color:var(--muted); font-variant-numeric:tabular-nums; }
    .label { font-weight:500; }
    .nolabel { color:#98a2b3; }
    main { display:grid; grid-template-columns:minmax(0,3fr) minmax(340px,2fr); gap:14px; padding:12px 18px 30px; }
    section.panel { background:#fff; border:1px solid var(--line); border-radius:8px; padding:10px 12px; margin-bottom:12px; }
    section.panel > h2 { font-size:13px; margin:0 0 8px; display:flex; gap:8px; align-items:center; }
    section.panel > h2 .sub { color:var(--muted); font-weight:400; }
    .type { margin-bottom:14px; }
    .type h3 { font-size:13px; margin:4px 0 6px; display:flex; gap:8px; align-items:center; }
    .type h3 .n { color:var(--muted); font-weight:400; }
    .tablewrap { overflow:auto; max-height:420px; border:1px solid var(--line); border-radius:6px; }
    table { border-collapse:collapse; width:100%; }
    th { position:sticky; top:0; background:var(--soft); text-align:left; font-weight:600; padding:4px 8px; border-bottom:1px solid var(--line); cursor:pointer; white-space:nowrap; user-select:none; }
    th.sorted::after { content:" ▲"; color:var(--accent); }
    th.sorted.desc::after { content:" ▼"; }
    td { padding:3px 8px; border-bottom:1px solid var(--soft); vertical-align:top; max-width:300px; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
    tr.selected td { background:var(--accent-soft); }
    tr.changed td { background:#fffbeb; }
    .key { color:var(--muted); }
    a.link, .objref { color:var(--accent); cursor:pointer; text-decoration:none; }
    a.link:hover { text-decoration:underline; }
    .null { color:#98a2b3; }
    .str { color:#1f2937; }
    .num { color:#0b6bcb; }
    .emb { display:inline; background:var(--soft); border-radius:4px; padding:0 3px; }
    .more { margin-top:6px; }
    .kv { display:grid; grid-template-columns:max-content 1fr; gap:2px 12px; margin:0; }
    .kv dt { color:var(--muted); }
    .kv dd { margin:0; overflow-wrap:anywhere; }
    ul.changes { list-style:none; padding:0; margin:6px 0 0; }
    ul.changes li { padding:2px 6px; border-radius:4px; margin-bottom:2px; overflow-wrap:anywhere; }
    li.inserted { background:var(--ins-soft); color:var(--ins); }
    li.deleted { background:var(--del-soft); color:var(--del); }
    li.changed { background:var(--chg-soft); color:#7a2e0e; }
    li.schema { background:var(--soft); color:var(--muted); }
    .arrow { color:var(--muted); padding:0 4px; }
    .old { color:var(--del); }
    .new { color:var(--ins); }
    #history li { display:block; }
    #history .hv { cursor:pointer; }
    .row { display:flex; gap:8px; align-items:center; flex-wrap:wrap; margin-bottom:6px; }
    #chart svg { width:100%; height:150px; display:block; }
    #chart .axis { stroke:#d0d5dd; }
    #chart .line { fill:none; stroke:var(--accent); stroke-width:2; }
    #chart button.current { background:var(--accent-soft); border-color:var(--accent); color:var(--accent); }
    #chart .now { stroke:var(--chg); stroke-dasharray:3 3; }
    #chart circle { fill:#fff; stroke:var(--accent); stroke-width:1.5; }
    #chart circle.current { fill:var(--accent); }
    #chart text { font-size:10px; fill:var(--muted); }
    .kinds span { display:inline-block; background:var(--soft); border-radius:10px; padding:0 7px; margin:0 4px 2px 0; font-size:12px; }
    #results li { cursor:pointer; }
    .empty { color:var(--muted); font-style:italic; }
    </style>
    </head>

    """

    static let body: StaticString = """
    <body>
    <header><h1>Chronicle Studio</h1><span class="file" id="file"></span><span class="count" id="commit-count"></span></header>
    <div id="problems" role="alert" hidden><h2>Problems in this journal</h2><ul id="problem-list"></ul></div>
    <div class="timeline">
      <div class="scrub">
        <button id="prev" title="Previous version (←)">◀</button>
        <input type="range" id="slider" min="0" max="0" value="0" aria-label="Version">
        <button id="next" title="Next version (→)">▶</button>
        <span class="ver">version <span id="version">0</span></span>
        <span class="hint">← → step · PgUp PgDn ±100 · Home End · times in UTC</span>
      </div>
      <ul id="commits" aria-label="Commits"></ul>
    </div>
    <main>
      <div>
        <section class="panel" id="state-panel"><h2>State at version <span id="state-version">0</span> <span class="sub" id="state-summary"></span></h2>
          <div class="row"><input type="text" id="pk-search" placeholder="Find by primary key or #key…" size="28"><span id="pk-results" class="hint"></span></div>
          <div id="state"></div>
        </section>
      </div>
      <div>
        <section class="panel" id="commit-panel"><h2>Commit <span id="commit-version"></span></h2><div id="commit"></div></section>
        <section class="panel" id="object-panel"><h2>Object <span id="object-name" class="sub">— click an object’s key</span></h2>
          <div id="object"></div><div id="chart"></div><ul class="changes" id="history"></ul></section>
        <section class="panel" id="diff-panel"><h2>Diff</h2>
          <div class="row">from <input type="number" id="diff-from" min="0"> to <input type="number" id="diff-to" min="0"> <button id="diff-go">Compare</button></div>
          <div id="diff"></div></section>
        <section class="panel" id="filter-panel"><h2>Find commits</h2>
          <div class="row"><input type="text" id="f-label" placeholder="label contains…" size="16">
            <select id="f-type"><option value="">any type</option></select>
            <select id="f-prop"><option value="">any property</option></select>
            <button id="f-go">Find</button></div>
          <div id="f-status" class="hint"></div><ul class="changes" id="results"></ul></section>
      </div>
    </main>

    """
}
