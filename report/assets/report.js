// fr report: renders the responses, the evidence and the networks from the
// page's data. Everything is drawn lazily: one page of the list, one
// response at a time. Nothing is loaded from anywhere.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('fr-data').textContent);
  var TYPES = ['entailment', 'contradiction', 'equivalence'];
  var TYPE_COLORS = ['#1b9e77', '#d95f02', '#7570b3'];
  var RUN_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  var SVGNS = 'http://www.w3.org/2000/svg';
  var state = { page: 0, filter: '', sortKey: 'line', sortRun: -1, sortDir: 1, shown: null, sel: null };

  // ---- helpers ----
  function el(tag, attrs) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function sv(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    setAttrs(e, attrs);
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function setAttrs(e, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === 'onclick') e.addEventListener('click', v);
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v);
    });
  }
  function add(e, kid) {
    if (kid === null || kid === undefined || kid === false) return;
    if (Array.isArray(kid)) { kid.forEach(function (k) { add(e, k); }); return; }
    e.appendChild(typeof kid === 'object' ? kid : document.createTextNode(String(kid)));
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }

  // P(true) on a diverging scale: red (false) through light grey (0.5) to blue (true).
  var STOPS = [[0, [215, 48, 39]], [0.25, [252, 141, 89]], [0.4, [254, 224, 144]], [0.5, [247, 247, 247]], [0.6, [224, 243, 248]], [0.75, [145, 191, 219]], [1, [69, 117, 180]]];
  function pColor(p) {
    if (p === null || p === undefined) return '#eeeeee'; // not in this run
    for (var i = 1; i < STOPS.length; i++) {
      if (p <= STOPS[i][0]) {
        var a = STOPS[i - 1], b = STOPS[i], t = (p - a[0]) / (b[0] - a[0]);
        var c = a[1].map(function (v, k) { return Math.round(v + t * (b[1][k] - v)); });
        return 'rgb(' + c.join(',') + ')';
      }
    }
    return 'rgb(69,117,180)';
  }
  function inkFor(p) { return p !== null && (p < 0.15 || p > 0.85) ? '#fff' : '#111'; }
  // Uniform (undecided) iff P(true) rounded to 6 decimals is 0.5; the data
  // holds P(true) rounded to 6 decimals.
  function uniform(p) { return p === 0.5; }
  function predicted(p) { return p === null ? '–' : uniform(p) ? 'undecided' : (p > 0.5 ? 'S' : 'NS'); }
  function f3(p) { return p === null || p === undefined ? '–' : p.toFixed(3); }
  function f6(p) { return p === null || p === undefined ? '–' : p.toFixed(6); }
  // A run that decides each atom without a P(true) (FactReasoner's
  // baselines, fr factscore) has its decision on atom i, 'S' or 'NS'.
  function dOf(x, i) { return x.d && i < x.d.length && x.d[i] ? x.d[i] : null; }
  // A node's colour, ink and value in a run: by P(true), or by the decision
  // (coloured as P(true) 1 or 0).
  function colorOf(x, i) { var d = dOf(x, i); return d ? pColor(d === 'S' ? 1 : 0) : pColor(pOf(x, i)); }
  function inkOf(x, i) { return dOf(x, i) ? '#fff' : inkFor(pOf(x, i)); }
  function valueOf(x, i) { var d = dOf(x, i), p = pOf(x, i); return d ? d : f3(p) + (uniform(p) ? ' ?' : ''); }
  function decidedTitle(d) { return 'decided ' + d + ' (this run has no P(true))'; }
  // Error bars: a network not solved exactly gives each P(true) one (x.err);
  // a label within its bar of 0.5 is uncertain.
  function errOf(x, i) {
    if (!x.err) return null;
    if (x.p[i] !== null) return x.err[i];
    if (x.al && x.al[i] !== undefined) return x.err[x.al[i]];
    return null;
  }
  function unsure(p, e) { return e !== null && e !== undefined && p !== null && p !== undefined && Math.abs(p - 0.5) <= e; }
  function pm(e) { return e === null || e === undefined ? '' : ' ± ' + e.toPrecision(2); }
  function pmNote(p, e) { return pm(e) + (unsure(p, e) ? ' (label uncertain: within its error bar of 0.5)' : ''); }
  function runColor(i) { return RUN_COLORS[i % RUN_COLORS.length]; }
  function swatch(i) { return el('span', { 'class': 'swatch', style: 'background:' + runColor(i) }); }

  // Node i of a response: atoms first, then contexts.
  function nodeOf(r, i) {
    var na = r.a.length;
    if (i < na) return { atom: true, id: r.a[i][0], text: r.a[i][1], gold: r.a[i][2], sent: r.a[i][3] };
    var c = r.c[i - na];
    return { atom: false, id: c[0], title: c[1], text: r.tx[c[2]], link: c[3] };
  }

  // ---- the list of responses ----
  var list = document.getElementById('list');
  var detail = document.getElementById('detail');
  var aside = document.getElementById('evidence');
  var hasGold = D.responses.some(function (r) { return r.r.some(function (x) { return x && x.gold !== undefined; }); });

  function matches(r, q) {
    if (!q) return true;
    q = q.toLowerCase();
    return (r.topic || '').toLowerCase().indexOf(q) >= 0 || r.input.toLowerCase().indexOf(q) >= 0 ||
      r.s.join('').toLowerCase().indexOf(q) >= 0;
  }
  function goldOf(r) {
    for (var i = 0; i < r.r.length; i++) if (r.r[i] && r.r[i].gold !== undefined) return r.r[i].gold;
    return null;
  }
  function sortValue(r) {
    switch (state.sortKey) {
      case 'line': return r.line;
      case 'topic': return (r.topic || r.input).toLowerCase();
      case 'atoms': return r.a.length;
      case 'gold': return goldOf(r);
    }
    var x = r.r[state.sortRun];
    return x ? x[state.sortKey] : null;
  }
  function sorted() {
    var rows = [];
    D.responses.forEach(function (r, i) { if (matches(r, state.filter)) rows.push(i); });
    rows.sort(function (a, b) {
      var va = sortValue(D.responses[a]), vb = sortValue(D.responses[b]);
      if (va === vb) return D.responses[a].line - D.responses[b].line;
      if (va === null) return 1;
      if (vb === null) return -1;
      return (va < vb ? -1 : 1) * state.sortDir;
    });
    return rows;
  }
  function header(label, key, run, title) {
    var on = state.sortKey === key && state.sortRun === run;
    return el('th', {
      'class': on ? ('sorted' + (state.sortDir < 0 ? ' up' : '')) : null, title: title || 'sort',
      onclick: function () {
        if (on) state.sortDir = -state.sortDir; else { state.sortKey = key; state.sortRun = run; state.sortDir = 1; }
        state.page = 0; renderList();
      }
    }, label);
  }
  function renderList() {
    var rows = sorted();
    var pages = Math.max(1, Math.ceil(rows.length / D.page));
    state.page = Math.min(state.page, pages - 1);
    clear(list);
    var search = el('input', { type: 'search', placeholder: 'filter by topic, question or text', value: state.filter, 'aria-label': 'filter' });
    search.addEventListener('input', function () {
      state.filter = search.value; state.page = 0; renderList();
      var s = list.querySelector('input[type=search]'); s.focus(); s.setSelectionRange(s.value.length, s.value.length);
    });
    var prev = el('button', { onclick: function () { state.page--; renderList(); } }, '‹ previous');
    var next = el('button', { onclick: function () { state.page++; renderList(); } }, 'next ›');
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
    list.appendChild(el('div', { 'class': 'controls' }, search, prev,
      el('span', null, 'page ' + (state.page + 1) + ' of ' + pages + ' · ' + rows.length + ' of ' + D.responses.length + ' responses'), next));
    var head = [header('line', 'line'), header('topic / question', 'topic'), header('atoms', 'atoms')];
    if (hasGold) head.push(header('gold Pr', 'gold', -1, 'share of gold S atoms'));
    D.runs.forEach(function (run, i) {
      head.push(header([swatch(i), 'Pr'], 'pr', i, run.name + ': factual precision'));
      head.push(header('F1@K', 'f1', i, run.name + ': F1@K'));
      head.push(header('E', 'e', i, run.name + ': avg_entropy'));
    });
    var body = el('tbody');
    rows.slice(state.page * D.page, (state.page + 1) * D.page).forEach(function (k) {
      var r = D.responses[k];
      var tds = [el('td', null, String(r.line)), el('td', { 'class': 'topic', title: r.input }, r.topic ? r.topic + ' — ' + r.input : r.input),
        el('td', null, String(r.a.length))];
      if (hasGold) tds.push(el('td', { 'class': 'p' }, f3(goldOf(r))));
      r.r.forEach(function (x) {
        if (!x) { tds.push(el('td', { 'class': 'na', colspan: 3 }, 'not in this run')); return; }
        if (x.ab) { tds.push(el('td', { 'class': 'na', colspan: 3, title: 'the response declines to answer: nothing was scored' }, 'abstained')); return; }
        tds.push(el('td', { 'class': 'p', style: 'background:' + pColor(x.pr) + ';color:' + inkFor(x.pr) }, f3(x.pr)),
          el('td', { 'class': 'p' }, f3(x.f1)), el('td', { 'class': 'p' }, f3(x.e)));
      });
      body.appendChild(el('tr', { 'data-line': r.line, onclick: function () { location.hash = 'line-' + r.line; } }, tds));
    });
    list.appendChild(el('div', { 'class': 'scroll' }, el('table', { 'class': 'list' }, el('thead', null, el('tr', null, head)), body)));
  }

  // ---- one response ----
  function legend() {
    return el('div', { 'class': 'legend' },
      el('span', { 'class': 'scale' }, 'P(true): 0', el('span', { 'class': 'bar', title: 'red: false, grey: 0.5, blue: true' }), '1'),
      el('span', null, el('span', { 'class': 'chip uniform', style: 'background:' + pColor(0.5) }, 'a0'), ' undecided (P(true) = 0.5)'),
      TYPES.map(function (t, i) { return el('span', { 'class': 'edge-key' }, el('i', { style: 'background:' + TYPE_COLORS[i] }), t); }),
      el('span', null, 'atoms: boxes, contexts: ellipses'));
  }
  function chip(ri, run, x, i) {
    var r = D.responses[ri], n = nodeOf(r, i), p = pOf(x, i), d = dOf(x, i), e = d ? null : errOf(x, i);
    var what = n.atom ? n.text : (n.title ? n.title + ': ' : '') + n.text.slice(0, 160);
    var attrs = { 'class': 'chip' + (!d && uniform(p) ? ' uniform' : '') + (unsure(p, e) ? ' unsure' : '') + (n.atom ? '' : ' context'), type: 'button', 'data-run': run, 'data-node': i, 'data-id': n.id,
      style: 'background:' + colorOf(x, i) + ';color:' + inkOf(x, i), title: n.id + ': ' + what + '\n' + (d ? decidedTitle(d) : 'P(true) = ' + f6(p) + pmNote(p, e) + (uniform(p) ? ' (undecided)' : '')),
      onclick: function () { select(ri, run, i); } };
    return el('button', attrs, n.id + ' ' + (d || f3(p) + (unsure(p, e) ? ' ±' : '')));
  }
  // pOf: P(true) of node i, through the node it was merged into.
  function pOf(x, i) {
    if (x.p[i] !== null) return x.p[i];
    if (x.al && x.al[i] !== undefined) return x.p[x.al[i]];
    return null;
  }
  function showDetail(line) {
    var ri = -1;
    D.responses.forEach(function (r, k) { if (r.line === line) ri = k; });
    if (ri < 0) { showList(); return; }
    var r = D.responses[ri];
    state.shown = ri;
    clear(detail);
    document.getElementById('responses').hidden = true;
    document.getElementById('summary').hidden = true;
    detail.hidden = false;
    detail.appendChild(el('a', { href: '#', 'class': 'back' }, '← all responses'));
    detail.appendChild(el('h2', null, 'Line ' + r.line + (r.topic ? ': ' + r.topic : '')));
    detail.appendChild(el('p', { 'class': 'question' }, r.input));
    detail.appendChild(legend());
    var cols = el('div', { 'class': 'results' });
    r.r.forEach(function (x, run) {
      var col = el('div', { 'class': 'result', 'data-run': run });
      col.appendChild(el('h3', null, swatch(run), D.runs[run].name));
      if (!x) { col.appendChild(el('p', { 'class': 'na' }, 'This run has no result for the record.')); cols.appendChild(col); return; }
      if (x.ab) { col.appendChild(el('p', { 'class': 'na' }, 'The response declines to answer (abstained): it was not split into atoms, and nothing was scored.')); cols.appendChild(col); return; }
      col.appendChild(el('div', { 'class': 'scores' }, 'Pr ' + f3(x.pr) + ' · F1@' + x.k + ' ' + f3(x.f1) + ' · E ' + f3(x.e) +
        (x.gold !== undefined ? ' · gold Pr ' + f3(x.gold) : '')));
      if (x.own) {
        col.appendChild(el('div', { 'class': 'own', title: 'values this run\'s own file records under its names, defined otherwise than the measures above' },
          'recorded by its file: ' + x.own.map(function (v) {
            return v[0] + ' ' + (v[1] === null ? 'null' : Number.isInteger(v[1]) ? String(v[1]) : v[1].toFixed(4));
          }).join(' · ')));
      }
      if (D.runs[run].decided) col.appendChild(el('p', { 'class': 'norel' }, 'This run decides each atom, supported or not, without a P(true): it has no network.'));
      else if (D.runs[run].other) col.appendChild(el('p', { 'class': 'norel' }, 'This run\'s file records the atoms\' marginals, not the relations or the contexts\' marginals: it has no network to show.'));
      else if (!x.known) col.appendChild(el('p', { 'class': 'norel' }, 'This output does not record the relations that became factors: the network shows its variables only.'));
      var text = el('div', { 'class': 'text' });
      var placed = {};
      r.s.forEach(function (s, k) {
        // The sentence, its atoms, then the space after it, so that the
        // atoms stay with their sentence.
        var body = s.replace(/\s+$/, ''), tail = s.slice(body.length);
        text.appendChild(el('span', { 'class': 'sent' }, body));
        r.a.forEach(function (a, i) { if (a[3] === k) { text.appendChild(chip(ri, run, x, i)); placed[i] = true; } });
        if (tail.indexOf('\n') >= 0) text.appendChild(el('br'));
        else if (tail) text.appendChild(document.createTextNode(' '));
      });
      var rest = [];
      r.a.forEach(function (a, i) { if (!placed[i]) rest.push(chip(ri, run, x, i)); });
      // A record may give its atoms with an empty response (ConflictBank's).
      if (rest.length) text.appendChild(el('div', { 'class': 'unplaced' }, r.s.length ? 'Atoms not placed in the text: ' : 'No response text; the record gives its atoms: ', rest));
      col.appendChild(text);
      col.appendChild(network(ri, run, x));
      cols.appendChild(col);
    });
    detail.appendChild(cols);
    detail.appendChild(comparison(ri));
    window.scrollTo(0, 0);
    // The panel opens on the evidence of the first atom that came out
    // false in the first run with a network: what a reader looks for
    // first. A response without one shows how to choose.
    var first = firstFalse(r);
    if (first) select(ri, first.run, first.node);
    else if (r.r.every(function (x) { return !x || x.ab; })) aside.replaceChildren(el('p', { 'class': 'hint' }, 'The response declines to answer: it has no atoms, and no evidence to show.'));
    else aside.replaceChildren(el('p', { 'class': 'hint' }, 'No atom came out false. Click an atom (in the text, the network or the table) or a context to see its evidence.'));
  }
  // firstFalse is the first atom with P(true) below 0.5 in the first run
  // that has a network (not decisions only, nor a file without
  // relations), or null.
  function firstFalse(r) {
    for (var run = 0; run < r.r.length; run++) {
      var x = r.r[run];
      if (!x || x.ab || D.runs[run].decided || D.runs[run].other || !x.known) continue;
      for (var i = 0; i < r.a.length; i++) {
        var p = pOf(x, i);
        if (p !== null && p < 0.5) return { run: run, node: i };
      }
    }
    return null;
  }
  function network(ri, run, x) {
    if (D.runs[run].other) return el('div', { 'class': 'net', 'data-run': run }); // no network recorded
    var r = D.responses[ri], g = x.g;
    var svg = sv('svg', { width: g.w, height: g.h, viewBox: '0 0 ' + g.w + ' ' + g.h, role: 'img', 'aria-label': 'network of ' + D.runs[run].name });
    var pos = {};
    g.i.forEach(function (i, k) { pos[i] = g.n[k]; });
    var edges = sv('g');
    x.rel.forEach(function (rel, e) {
      var cc = rel[0] >= r.a.length && rel[1] >= r.a.length;
      edges.appendChild(sv('path', { 'class': 'edge', d: g.e[e], fill: 'none', stroke: TYPE_COLORS[rel[2]],
        'stroke-width': cc ? 0.8 : (1 + 1.5 * rel[3]).toFixed(2), 'stroke-opacity': cc ? 0.55 : 0.85,
        'marker-end': 'url(#fr-arrow-' + rel[2] + ')', 'data-s': rel[0], 'data-t': rel[1] },
        sv('title', { text: nodeOf(r, rel[0]).id + ' → ' + nodeOf(r, rel[1]).id + ': ' + TYPES[rel[2]] + ' ' + f6(rel[3]) })));
    });
    svg.appendChild(edges);
    var nodes = sv('g');
    Object.keys(pos).forEach(function (key) {
      var i = +key, q = pos[i], n = nodeOf(r, i), p = x.p[i], e = errOf(x, i), w = q[2], h = 18;
      var shape = n.atom ? sv('rect', { x: q[0] - w / 2, y: q[1] - h / 2, width: w, height: h, rx: 3 }) :
        sv('ellipse', { cx: q[0], cy: q[1], rx: w / 2, ry: h / 2 });
      setAttrs(shape, { fill: pColor(p), stroke: unsure(p, e) ? '#b8860b' : '#4a4a4a', 'stroke-width': unsure(p, e) ? 2 : 1, 'stroke-dasharray': uniform(p) ? '3 2' : null });
      nodes.appendChild(sv('g', { 'class': 'node', 'data-node': i, 'data-id': n.id, onclick: function () { select(ri, run, i); } }, shape,
        sv('text', { x: q[0], y: q[1] + 3.5, 'text-anchor': 'middle', fill: inkFor(p), text: n.id }),
        sv('title', { text: n.id + ' P(true) = ' + f6(p) + pmNote(p, e) + (uniform(p) ? ' (undecided)' : '') + '\n' + (n.atom ? n.text : (n.title ? n.title + ': ' : '') + n.text.slice(0, 160)) })));
    });
    svg.appendChild(nodes);
    var alone = [];
    x.p.forEach(function (p, i) { if (p !== null && !pos[i]) alone.push(i); });
    var note = null;
    if (alone.length) {
      note = el('div', { 'class': 'unrelated' }, (g.i.length ? 'Not in any relation (P(true) stays at its prior): ' : 'No relation in this network: '),
        alone.map(function (i) { return chip(ri, run, x, i); }));
    }
    return el('div', { 'class': 'net', 'data-run': run }, g.i.length ? svg : null, note);
  }
  function comparison(ri) {
    var r = D.responses[ri];
    var head = [el('th', null, 'atom'), el('th', { 'class': 'text' }, 'text'), el('th', null, 'gold')];
    D.runs.forEach(function (run, i) { head.push(el('th', { title: run.name }, swatch(i), 'P(true)')); });
    var body = el('tbody');
    function rows(from, to, label) {
      for (var i = from; i < to; i++) {
        var n = nodeOf(r, i);
        var tds = [el('td', null, n.id), el('td', { 'class': 'text' }, n.atom ? n.text : (n.title || '') + (n.title ? ': ' : '') + n.text.slice(0, 120)), el('td', null, n.atom ? (n.gold || '–') : '')];
        r.r.forEach(function (x, run) {
          if (!x) { tds.push(el('td', { 'class': 'na' }, '–')); return; }
          var p = pOf(x, i), d = dOf(x, i), e = d ? null : errOf(x, i);
          (function (i, run) {
            tds.push(el('td', { 'class': 'cell' + (unsure(p, e) ? ' unsure' : ''), 'data-run': run, 'data-node': i, style: 'background:' + colorOf(x, i) + ';color:' + inkOf(x, i),
              title: d ? decidedTitle(d) : p === null ? 'not in this run' : 'P(true) = ' + f6(p) + pmNote(p, e) + (x.p[i] === null ? ' (merged with a duplicate)' : ''), onclick: function () { select(ri, run, i); } },
              valueOf(x, i) + (d ? '' : pm(e))));
          })(i, run);
        });
        body.appendChild(el('tr', null, tds));
      }
    }
    rows(0, r.a.length);
    var atoms = el('table', { 'class': 'cmp' }, el('thead', null, el('tr', null, head)), body);
    var chead = head.slice();
    chead[0] = el('th', null, 'context');
    body = el('tbody');
    rows(r.a.length, r.a.length + r.c.length);
    var ctxs = el('table', { 'class': 'cmp' }, el('thead', null, el('tr', null, chead.map(function (h) { return h.cloneNode(true); }))), body);
    return el('div', null, el('h3', null, 'Atoms in each run'), el('div', { 'class': 'scroll' }, atoms),
      el('details', null, el('summary', null, 'Contexts in each run (' + r.c.length + ')'), el('div', { 'class': 'scroll' }, ctxs)));
  }

  // ---- the evidence panel ----
  function select(ri, run, i) {
    var r = D.responses[ri], x = r.r[run], n = nodeOf(r, i);
    state.sel = { ri: ri, run: run, node: i };
    Array.prototype.forEach.call(detail.querySelectorAll('.sel'), function (e) { e.classList.remove('sel'); });
    Array.prototype.forEach.call(detail.querySelectorAll('.chip[data-run="' + run + '"][data-node="' + i + '"], .cell[data-run="' + run + '"][data-node="' + i + '"], .net[data-run="' + run + '"] .node[data-node="' + i + '"]'),
      function (e) { e.classList.add('sel'); });
    var v = i; // the variable that stands for the node
    if (x.p[i] === null && x.al && x.al[i] !== undefined) v = x.al[i];
    Array.prototype.forEach.call(detail.querySelectorAll('.net'), function (net) {
      var on = +net.getAttribute('data-run') === run;
      net.classList.toggle('focus', on);
      Array.prototype.forEach.call(net.querySelectorAll('.edge'), function (e) {
        e.classList.toggle('on', on && (+e.getAttribute('data-s') === v || +e.getAttribute('data-t') === v));
      });
    });
    var p = x.p[v], d = dOf(x, i), e = x.err ? x.err[v] : null;
    var box = [];
    box.push(el('h3', null, swatch(run), (n.atom ? 'Atom ' : 'Context ') + n.id, el('span', { 'class': 'note' }, ' · ' + D.runs[run].name)));
    if (n.atom) box.push(el('div', { 'class': 'body' }, n.text));
    else {
      if (n.title) box.push(el('div', null, el('b', null, n.title)));
      if (n.link && /^https?:\/\//i.test(n.link)) box.push(el('div', null, el('a', { href: n.link, target: '_blank', rel: 'noopener noreferrer' }, n.link)));
      box.push(el('div', { 'class': 'body excerpt' }, n.text));
    }
    if (v !== i) box.push(el('p', { 'class': 'note' }, 'Merged into ' + nodeOf(r, v).id + ', which has the same text: its evidence is shown.'));
    box.push(el('p', null, d ? ['decided ', el('span', { 'class': 'ptrue', style: 'background:' + colorOf(x, i) + ';color:' + inkOf(x, i) }, d), ' (no P(true))'] :
      ['P(true) ', el('span', { 'class': 'ptrue', style: 'background:' + pColor(p) + ';color:' + inkFor(p) }, f6(p)), pm(e), ' · predicted ', el('b', null, predicted(p)),
        unsure(p, e) ? el('span', { 'class': 'warn' }, ' (uncertain: within its error bar of 0.5)') : null],
      n.atom ? [' · gold ', el('b', { 'class': 'gold' }, n.gold || 'unknown')] : null));
    if (D.runs[run].decided) {
      box.push(el('p', { 'class': 'note' }, 'This run decides each atom without a P(true), and records no evidence.'));
    } else if (p === null || p === undefined) {
      box.push(el('p', { 'class': 'note' }, D.runs[run].other ? 'This run\'s file records no P(true) for it.' : 'Not a variable of this run\'s network.'));
    } else if (!x.known) {
      box.push(el('p', { 'class': 'norel' }, 'This output does not record its relations, so the evidence cannot be shown.'));
    } else {
      var into = [], out = [];
      // Each relation with its index (rel[4]), which finds what it rests on (x.w).
      x.rel.forEach(function (rel, k) { if (rel[1] === v) into.push(rel.concat(k)); else if (rel[0] === v) out.push(rel.concat(k)); });
      var bySource = function (a, b) { return b[3] - a[3] || (a[0] < b[0] ? -1 : 1); };
      into.sort(bySource); out.sort(bySource);
      box.push(el('h4', null, n.atom ? 'Relations (' + into.length + ')' : 'Relations into it (' + into.length + ')'));
      if (!into.length) box.push(el('p', { 'class': 'note' }, n.atom ? 'No relation: nothing moves it from its prior.' : 'No other context bears on it.'));
      else box.push(el('ul', { 'class': 'rels' }, into.map(function (rel) { return relation(ri, run, rel[0], rel); })));
      if (!n.atom) {
        box.push(el('h4', null, 'Relations from it (' + out.length + ')'));
        if (!out.length) box.push(el('p', { 'class': 'note' }, 'It bears on nothing.'));
        else box.push(el('ul', { 'class': 'rels' }, out.map(function (rel) { return relation(ri, run, rel[1], rel); })));
      }
    }
    if (D.runs.length > 1) {
      var rows = r.r.map(function (y, k) {
        if (!y) return el('tr', null, el('td', null, swatch(k), D.runs[k].name), el('td', { 'class': 'na' }, '–'));
        var q = pOf(y, i), dq = dOf(y, i);
        return el('tr', null, el('td', { style: 'text-align:left' }, swatch(k), D.runs[k].name), el('td', { style: 'background:' + colorOf(y, i) + ';color:' + inkOf(y, i) }, dq || f6(q)));
      });
      box.push(el('h4', null, 'P(true) in each run'), el('table', null, el('tbody', null, rows)));
    }
    aside.replaceChildren.apply(aside, box);
  }
  // relation: one relation of the selection, told from the other end. It
  // leads with the sentences of its premise (the source context) that best
  // match its hypothesis, then shows the other end: a premise's text with
  // those sentences marked, or the hypothesis's text.
  function relation(ri, run, other, rel) {
    var r = D.responses[ri], x = r.r[run], o = nodeOf(r, other), po = x.p[other];
    var link = el('a', { 'class': 'node-link', onclick: function () { select(ri, run, other); } }, o.id);
    var w = x.w[rel[4]] || [], text = r.tx[w[0]], m = w.slice(1), premise = nodeOf(r, rel[0]), hyp = nodeOf(r, rel[1]);
    var why = null;
    if (m.length) {
      why = el('div', { 'class': 'why', title: 'the sentence' + (m.length > 2 ? 's' : '') + ' of ' + premise.id + ' that best match' + (m.length > 2 ? '' : 'es') + ' ' + hyp.id },
        sentences(text, m));
    } else if (w.length) {
      why = el('div', { 'class': 'why none' }, 'No sentence of ' + premise.id + ' shares a word with ' + hyp.id + '.');
    }
    var shown = o.atom ? el('div', { 'class': 'excerpt' }, o.text) :
      [o.title ? el('div', null, el('b', null, o.title)) : null,
        el('div', { 'class': 'excerpt' }, rel[0] === other && w.length ? marked(text, m) : o.text)];
    return el('li', { 'data-source': premise.id, 'data-target': hyp.id },
      el('div', null, el('span', { 'class': 'type', style: 'background:' + TYPE_COLORS[rel[2]] }, TYPES[rel[2]]), ' ', el('b', { 'class': 'prob' }, f6(rel[3])),
        rel[0] === other ? ' from ' : ' to ', link, ' · its P(true) ', el('span', { 'class': 'ptrue', style: 'background:' + pColor(po) + ';color:' + inkFor(po) }, f3(po))),
      why, shown);
  }
  // sentences: the marked parts of text (m: start, end, ... in UTF-16 code
  // units, as JavaScript counts), in order, an ellipsis between two that are
  // not next to each other.
  function sentences(text, m) {
    var parts = [];
    for (var i = 0; i < m.length; i += 2) {
      if (i > 0) parts.push(/\S/.test(text.slice(m[i - 1], m[i])) ? ' … ' : ' ');
      parts.push(text.slice(m[i], m[i + 1]));
    }
    return parts;
  }
  // marked: text with the parts m names in <mark>, as text nodes: whatever
  // the text holds is shown, never read as HTML.
  function marked(text, m) {
    var parts = [], at = 0;
    for (var i = 0; i < m.length; i += 2) {
      parts.push(text.slice(at, m[i]), el('mark', null, text.slice(m[i], m[i + 1])));
      at = m[i + 1];
    }
    parts.push(text.slice(at));
    return parts;
  }

  // ---- routing ----
  function showList() {
    state.shown = null;
    detail.hidden = true;
    clear(detail);
    document.getElementById('responses').hidden = false;
    document.getElementById('summary').hidden = false;
    aside.replaceChildren(el('p', { 'class': 'hint' }, 'Open a response, then click an atom or a context to see its evidence.'));
    renderList();
  }
  function route() {
    var m = /^#line-(\d+)$/.exec(location.hash);
    if (m) showDetail(+m[1]); else showList();
  }
  // Arrowheads, one per relation type, shared by every network.
  var defs = sv('svg', { width: 0, height: 0, style: 'position:absolute', 'aria-hidden': 'true' }, sv('defs', null, TYPE_COLORS.map(function (c, t) {
    return sv('marker', { id: 'fr-arrow-' + t, viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse', markerUnits: 'userSpaceOnUse' },
      sv('path', { d: 'M0 0L10 5L0 10z', fill: c }));
  })));
  document.body.insertBefore(defs, document.body.firstChild);
  window.addEventListener('hashchange', route);
  route();
})();
