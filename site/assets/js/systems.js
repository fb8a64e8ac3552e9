/*
 * The Systems page: one system's declared description, loaded when the address
 * names it (systems.html#<system id>).
 *
 * The page (pipeline/render/system_pages.py) lists every system, each row's id its
 * system id, so links from other pages are ordinary anchors. This script fetches
 * <data-source><id>.json for the named system and shows the description per round
 * (what changed from the round before marked), every result, the software-gain
 * chain and power. Declared strings are hostile: they are only ever set as
 * textContent; result links must be http(s). Ids are checked against the page's
 * own rows before anything is fetched.
 *
 * In mkdocs.yml's extra_javascript: it does nothing where there is no
 * #ledger-systems; Material's document$ emits after every instant navigation.
 */
(function () {
  "use strict";

  var FORMAT = "mlperf-ledger system v1";
  var SAFE_URL = /^https?:\/\/[^\s"'<>]+$/i;
  var ID = /^[a-z0-9-]+$/;
  var NUMBER = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 6 });

  /* Every upstream string is shown through the site's one helper (text.js). */
  var show = window.ledgerText.show;

  function number(value) {
    return typeof value === "number" && isFinite(value) ? NUMBER.format(value) : "";
  }

  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  function table(headers, rows) {
    var wrap = el("div", undefined, "md-typeset__table");
    var t = el("table");
    var head = el("tr");
    headers.forEach(function (h) { head.appendChild(el("th", h)); });
    var thead = el("thead");
    thead.appendChild(head);
    t.appendChild(thead);
    var body = el("tbody");
    rows.forEach(function (cells) {
      var tr = el("tr");
      cells.forEach(function (cell) {
        var td = el("td");
        if (cell instanceof Node) td.appendChild(cell); else td.textContent = show(cell);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    t.appendChild(body);
    wrap.appendChild(t);
    return wrap;
  }

  function render(view, doc) {
    view.textContent = "";
    view.appendChild(el("h2", show(doc.submitter) + " · " + show(doc.platform)));
    view.appendChild(el("p", show(doc.total_accelerators) + " × " + show(doc.accelerator) +
      " · " + show(doc.nodes || 1) + " node(s). Declared names: " + doc.names.map(show).join(" · ")));
    view.appendChild(el("p", show(doc.declared_note), "ledger-systems__declared"));

    view.appendChild(el("h3", "Declared description by round"));
    var releases = doc.rounds.map(function (r) { return show(r.release); });
    var labels = [];
    var values = {};
    var changed = {};
    doc.rounds.forEach(function (round) {
      round.fields.forEach(function (f) {
        var label = show(f.label);
        if (!(label in values)) { values[label] = {}; labels.push(label); }
        values[label][show(round.release)] = show(f.value);
      });
    });
    doc.changes.forEach(function (c) { changed[show(c.label) + "\u0001" + show(c.to)] = true; });
    var rows = labels.map(function (label) {
      return [label].concat(releases.map(function (release) {
        var text = values[label][release];
        if (text === undefined) return "";
        if (!changed[label + "\u0001" + release]) return text;
        var mark = el("mark", text, "ledger-systems__changed");
        mark.title = "changed from the round before";
        var span = el("span");
        span.appendChild(mark);
        span.appendChild(el("small", " (changed)"));
        return span;
      }));
    });
    view.appendChild(table(["Field"].concat(releases), rows));
    view.appendChild(el("p", "Sources: " + doc.rounds.map(function (r) {
      return show(r.release) + " " + show(r.source_file) + " (sha256 " + show(r.sha256).slice(0, 12) + ")";
    }).join("; ")));

    view.appendChild(el("h3", "What changed between its rounds"));
    if (doc.changes.length) {
      view.appendChild(table(["From", "To", "Field", "Before", "After"], doc.changes.map(function (c) {
        return [c.from, c.to, c.label, c.old, c.new];
      })));
    } else {
      view.appendChild(el("p", "Nothing both rounds declare changed."));
    }

    view.appendChild(el("h3", "Software-gain chain (same system, later round over earlier)"));
    if (doc.gains.length) {
      view.appendChild(table(["Division", "Benchmark", "Scenario", "From", "To", "Ratio", "Consecutive", "Before", "After"],
        doc.gains.map(function (g) {
          return [g.division, g.benchmark, g.scenario, g.from, g.to,
            number(g.ratio) + "×", g.consecutive ? "yes" : "no",
            number(g.old) + " " + show(g.result_unit), number(g.new) + " " + show(g.result_unit)];
        })));
      view.appendChild(el("p", "Derived, unofficial ratios of two published results (see Methodology)."));
    } else {
      view.appendChild(el("p", "No software-gain pair: this system has no comparable result in two rounds."));
    }

    view.appendChild(el("h3", "Every result, every round"));
    view.appendChild(table(["Round", "Division", "Benchmark", "Scenario", "Result", "Power", "Software"],
      doc.results.map(function (r) {
        var value = number(r.value) + " " + show(r.unit);
        var cell = value;
        if (SAFE_URL.test(show(r.url))) {
          cell = el("a", value);
          cell.setAttribute("href", show(r.url));
          cell.rel = "noopener";
          cell.title = show(r.key);
        }
        var power = r.power === null || r.power === undefined ? "not measured" : number(r.power) + " " + show(r.power_unit);
        return [r.release, r.division, r.benchmark, r.scenario, cell, power, r.software];
      })));
  }

  function start() {
    var root = document.getElementById("ledger-systems");
    if (!root) return;
    var view = root.querySelector(".ledger-systems__view");
    function open() {
      var id = decodeURIComponent(window.location.hash.slice(1));
      var row = ID.test(id) ? document.getElementById(id) : null;
      /* Which description is shown is said only once it is: a later hash wins
         over an earlier one still loading. */
      var asked = (root.__ledgerAsked = (root.__ledgerAsked || 0) + 1);
      root.removeAttribute("data-system");
      if (!row || row.tagName !== "TR") {
        view.hidden = true;
        return;
      }
      view.hidden = false;
      view.textContent = "Loading the description…";
      fetch(new URL(root.getAttribute("data-source") + id + ".json", document.baseURI).href)
        .then(function (response) {
          if (!response.ok) throw new Error(String(response.status));
          return response.json();
        })
        .then(function (doc) {
          if (asked !== root.__ledgerAsked) return;
          if (!doc || doc.format !== FORMAT || doc.id !== id) throw new Error("not a system description");
          render(view, doc);
          root.setAttribute("data-system", id);
          view.scrollIntoView();
        })
        .catch(function (error) {
          if (asked !== root.__ledgerAsked) return;
          view.textContent = "The description could not load: " + error.message;
        });
    }
    if (!window.__ledgerSystemsHash) {
      window.__ledgerSystemsHash = true;
      window.addEventListener("hashchange", start);
    }
    open();
  }

  if (typeof window.document$ !== "undefined") {
    window.document$.subscribe(start);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
