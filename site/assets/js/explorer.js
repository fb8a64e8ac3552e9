/*
 * The Explorer page: every result of every round in a Tabulator table.
 *
 * The page (pipeline/render/explorer.py) holds a filter form, the table's first page
 * as plain HTML, and a container whose data-* attributes name the gzip'd JSON data
 * file, the vendored Tabulator script and its styles (all paths relative to the
 * page). This script loads them on this page only, when the reader reaches for the
 * table (or at once when the address holds a view), fills the filter options from
 * the data, and keeps the view (filters, search, sort, page) in the address bar, so
 * a copied link restores it.
 *
 * Upstream strings are hostile: they are only ever set as textContent, Option text
 * or attribute values; result links must be http(s). The CSV download prefixes text
 * cells a spreadsheet would run as a formula with the guard the data file names (the
 * same rule as the site's CSV files, pipeline/render/downloads.py).
 *
 * Listed in mkdocs.yml's extra_javascript (generated pages carry no <script> element
 * at all), so it is on every page: it does nothing where there is no #ledger-explorer,
 * and loads the table library only where there is one. Material's instant navigation
 * swaps page content without reloading scripts; ledgerOnPage (material.js) runs start
 * for the page as loaded and after every swap: we mount there, once per container.
 */
(function () {
  "use strict";

  var FORMAT = "mlperf-ledger explorer v1";
  var PAGE_SIZES = [25, 50, 100, 250];
  var SAFE_URL = /^https?:\/\/[^\s"'<>]+$/i;
  var NUMBER = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 6 });
  /* Fields searched by the text box. */
  var SEARCHED = [
    "release", "benchmark", "scenario", "result_unit", "submitter", "system_name",
    "platform", "division", "category", "availability", "accelerator",
    "accelerator_name", "host_cpu_name", "software", "result_key", "result_id",
    "accelerator_memory", "accelerator_interconnect", "host_memory", "cooling",
    "framework", "operating_system", "interconnect_family", "cooling_kind",
  ];
  /* A phone's width (Material's breakpoint). */
  var NARROW = window.matchMedia("(max-width: 44.984375em)");
  /* The declared description's columns: off until "Description columns" is pressed
     (in the address as describe=1); every download holds them, shown or not. */
  var DESCRIPTION = [
    "accelerator_memory_gb", "accelerator_memory", "interconnect_family",
    "accelerator_interconnect", "host_cpu_name", "host_memory_gb", "cooling_kind",
    "cooling", "framework", "operating_system",
  ];
  /* Normalised description columns (registry/descriptions.toml) and the declared
     column each reads: its cell's title shows the declared text. */
  var NORMALISED = {
    accelerator_memory_gb: "accelerator_memory", accelerator_memory_size: "accelerator_memory",
    interconnect_family: "accelerator_interconnect", cooling_kind: "cooling",
  };
  /* What a description filter is called in the line that says which rounds it
     leaves out. */
  var DESCRIBED_FILTERS = {
    accelerator_memory_size: "accelerator memory", interconnect_family: "interconnect",
    cooling_kind: "cooling",
  };

  /* Rounds as words: "v4.1", "v4.1 and v6.1", "v2.1, v4.1 and v6.1". */
  function series(rounds) {
    if (rounds.length <= 1) return rounds.join("");
    return rounds.slice(0, -1).join(", ") + " and " + rounds[rounds.length - 1];
  }

  /* The compare verdict's ratio, B against A, as words (pure: the browser test calls
     it as window.ledgerExplorer.ratioWording). Above 1× B is better, whichever way
     the unit counts. Two results of different accelerator counts lead with the
     per-accelerator ratio and give the total ratio after it, both labelled, so a
     72-chip rack against an 8-chip server does not read as a 9× better chip; one
     count (or an unknown one) gives the total ratio alone. */
  function ratioWording(a, b) {
    function times(x, y) {
      return (a.is_higher_better ? y / x : x / y).toFixed(2) + "×";
    }
    var total = "B is " + times(a.result_value, b.result_value) + " A";
    var na = a.total_accelerators, nb = b.total_accelerators;
    if (!na || !nb || na === nb) return total;
    var counted = "Total (" + na + " vs " + nb + " accelerators): " + total;
    if (a.result_per_accelerator && b.result_per_accelerator) {
      return "Per accelerator: B is " +
        times(a.result_per_accelerator, b.result_per_accelerator) + " A · " + counted;
    }
    return counted + (a.is_higher_better ? " (no per-accelerator value)"
      : " (a latency is not divided by the accelerator count)");
  }

  /* The text filter is "find" in the address. Links made before 2026-12 call it
     "q", which is Material's search parameter: Material, starting, opened its
     search over the Explorer with that text, took the reader's typing, and
     removed "q" from the address when closed. Such a link is read, and its
     address rewritten at once, before Material can start. */
  function legacyQuery(params) {
    if (!params.has("q")) return;
    if (!params.get("find")) params.set("find", params.get("q"));
    params.delete("q");
    replaceQuery(params);
  }

  /* The address with this query (the same page and hash), replaced in place. */
  function replaceQuery(params) {
    var query = params.toString();
    var url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    if (url !== window.location.pathname + window.location.search + window.location.hash) {
      window.history.replaceState(window.history.state, "", url);
    }
  }

  window.ledgerExplorer = { ratioWording: ratioWording };

  function start() {
    var root = document.getElementById("ledger-explorer");
    if (!root || root.getAttribute("data-state")) return;
    var form = root.querySelector("form");
    var status = root.querySelector(".ledger-explorer__status");
    var holder = root.querySelector(".ledger-explorer__table");

    function resolve(path) {
      return new URL(path, document.baseURI).href;
    }

    function fail(message) {
      root.setAttribute("data-state", "failed");
      status.textContent = "The explorer could not load: " + message;
      console.error("ledger-explorer", message);
    }

    /* ---- loading --------------------------------------------------------------- */

    function loadStyles() {
      (root.getAttribute("data-styles") || "").split(" ").filter(Boolean)
        .forEach(function (path) {
          var href = resolve(path);
          var present = Array.prototype.some.call(
            document.querySelectorAll("link[rel=stylesheet]"),
            function (link) { return link.href === href; }
          );
          if (present) return;
          var link = document.createElement("link");
          link.rel = "stylesheet";
          link.href = href;
          document.head.appendChild(link);
        });
    }

    function loadLibrary() {
      if (typeof window.Tabulator === "function") return Promise.resolve();
      if (window.__ledgerTabulator) return window.__ledgerTabulator;
      window.__ledgerTabulator = new Promise(function (ok, ko) {
        var script = document.createElement("script");
        script.src = resolve(root.getAttribute("data-library"));
        script.onload = function () { ok(); };
        script.onerror = function () {
          window.__ledgerTabulator = null;
          ko(new Error("the table library did not load"));
        };
        document.head.appendChild(script);
      });
      return window.__ledgerTabulator;
    }

    function gunzip(buffer) {
      var bytes = new Uint8Array(buffer);
      // A server may already have decoded it (Content-Encoding: gzip): then it is JSON.
      if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
        return Promise.resolve(new TextDecoder().decode(bytes));
      }
      if (typeof DecompressionStream !== "function") {
        return Promise.reject(new Error("this browser cannot decompress the data"));
      }
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      return new Response(stream).text();
    }

    function loadData() {
      var url = resolve(root.getAttribute("data-source"));
      return fetch(url)
        .then(function (response) {
          if (!response.ok) throw new Error(response.status + " for " + url);
          return response.arrayBuffer();
        })
        .then(gunzip)
        .then(function (text) {
          var data = JSON.parse(text);
          if (!data || data.format !== FORMAT || !Array.isArray(data.data)) {
            throw new Error("the data file is not in the " + FORMAT + " format");
          }
          return data;
        });
    }

    /* ---- cells ----------------------------------------------------------------- */

    /* Every upstream string is shown through the site's one helper (text.js). */
    var show = window.ledgerText.show;

    function number(value) {
      if (typeof value !== "number" || !isFinite(value)) return "";
      var abs = Math.abs(value);
      if (abs !== 0 && (abs >= 1e15 || abs < 1e-4)) return value.toExponential(5);
      return NUMBER.format(value);
    }

    /* ---- why a cell is empty ----------------------------------------------------- */

    /* Fields of which a whole round has no value: filled in mount() from the data. */
    var roundsWithout = {};
    var EMPTY_FIELDS = ["category", "availability", "software", "total_accelerators",
      "result_per_accelerator", "power_value", "result_id"];

    function noteRoundsWithout(rows) {
      var seen = {};
      var releases = {};
      rows.forEach(function (row) {
        releases[row.release] = true;
        EMPTY_FIELDS.forEach(function (field) {
          var v = row[field];
          if (v !== null && v !== undefined && v !== "") seen[field + "\u0001" + row.release] = true;
        });
      });
      EMPTY_FIELDS.forEach(function (field) {
        roundsWithout[field] = new Set(Object.keys(releases).filter(function (release) {
          return !seen[field + "\u0001" + release];
        }));
      });
    }

    /* A short reason for an empty cell (shown) and a longer one (its title). */
    function emptyReason(field, row) {
      var release = show(row.release);
      var none = roundsWithout[field === "_per_joule" ? "power_value" : field];
      if (none && none.has(release)) {
        return ["none in " + release, "No " + release + " result in the source has this value."];
      }
      if (field === "result_per_accelerator") {
        if (!row.is_higher_better) return ["latency", "A latency is not divided by the accelerator count."];
        if (row.total_accelerators === 0) return ["no accelerator", "A CPU-only system: nothing to divide by."];
        return ["no count", "Upstream gives no accelerator count for this result."];
      }
      if (field === "power_value" || field === "_per_joule") {
        if (row.power_value > 0 && field === "_per_joule") {
          return ["n/a", "Power in " + show(row.power_unit) + " gives no work per joule for a latency."];
        }
        return ["not measured", "This submission measured no power."];
      }
      return ["not given", "Upstream gives no value for this result."];
    }

    function emptyCell(field, row) {
      var reason = emptyReason(field, row);
      var span = document.createElement("span");
      span.className = "ledger-explorer__none";
      span.textContent = reason[0];
      span.title = reason[1];
      return span;
    }

    /* Per description column, the rounds whose source declares no such field
       (the data file's "undescribed", filled in mount()). */
    var undescribed = {};
    /* Declared texts that declare nothing ("n/a", "-"): the data file's no_value. */
    var noValue = [];

    /* Why a description cell is empty: the round's source has no such field, the
       declared text is not in the vocabulary, or this system declares nothing. */
    function descriptionCell(field, row) {
      var release = show(row.release);
      var span = document.createElement("span");
      span.className = "ledger-explorer__none";
      var declared = NORMALISED[field] ? show(row[NORMALISED[field]]) : "";
      if (noValue.indexOf(declared.trim().toLowerCase()) >= 0) declared = "";
      if ((undescribed[field] || []).indexOf(release) >= 0) {
        span.textContent = "not in the source this site read";
        span.title = "The source of " + release + " that this site read declares no " +
          "such field for any system; it is not known, not removed.";
      } else if (declared) {
        span.textContent = "not in the vocabulary";
        span.title = "Declared: " + declared + ". The site's vocabulary " +
          "(registry/descriptions.toml) gives it no value; the Audit page lists it.";
      } else {
        span.textContent = "not declared";
        span.title = "This system's description declares no value.";
      }
      return span;
    }

    /* A normalised value's title is the declared text it comes from. */
    function declaredTitle(cell) {
      var source = NORMALISED[cell.getField()];
      if (!source) return;
      var declared = show(cell.getRow().getData()[source]);
      if (declared) cell.getElement().title = "Declared: " + declared;
    }

    function textCell(cell) {
      var value = show(cell.getValue());
      if (value) cell.getElement().title = value;
      var field = cell.getField();
      if (!value && EMPTY_FIELDS.indexOf(field) >= 0) return emptyCell(field, cell.getRow().getData());
      if (!value && undescribed[field]) return descriptionCell(field, cell.getRow().getData());
      if (value) declaredTitle(cell);
      return document.createTextNode(value);
    }

    /* The system's name, linked to its section on its family's page (the systems
       list where the row names no page: the list takes the address on). */
    function systemCell(cell) {
      var row = cell.getRow().getData();
      var value = show(cell.getValue());
      var base = root.getAttribute("data-systems");
      var folder = root.getAttribute("data-system-pages");
      if (!base || !/^[a-z0-9-]+$/.test(show(row.system_id))) return textCell(cell);
      var page = show(row.system_page);
      var target = folder && /^[a-z0-9][a-z0-9._-]*$/.test(page)
        ? resolve(folder + page + ".html") : resolve(base);
      var link = document.createElement("a");
      link.setAttribute("href", target + "#" + row.system_id);
      link.textContent = value || "(unnamed system)";
      link.title = value + " — its declared description across rounds";
      return link;
    }

    function numberCell(cell) {
      var text = number(cell.getValue());
      var field = cell.getField();
      if (!text && EMPTY_FIELDS.indexOf(field) >= 0) return emptyCell(field, cell.getRow().getData());
      if (!text && undescribed[field]) return descriptionCell(field, cell.getRow().getData());
      if (text) declaredTitle(cell);
      return document.createTextNode(text);
    }

    /* Derived, not an MLPerf result: 10^6 / (3600 × per-accelerator throughput);
       an empty cell carries the reason the data file gives (cost_reason). */
    function costCell(cell) {
      var text = number(cell.getValue());
      if (text) return document.createTextNode(text);
      var span = document.createElement("span");
      span.className = "ledger-explorer__none";
      span.textContent = "n/a";
      span.title = show(cell.getRow().getData().cost_reason);
      return span;
    }

    /* What an accuracy cell says where the source this site read has none. */
    var NO_ACCURACY = "not in the source this site read";

    /* The accuracy upstream published, as it wrote it (the summary's Accuracy, a
       raw tree's accuracy.txt), through text.js like every upstream string; an
       empty cell says the source has none, its title why where a file that was
       read gave none (accuracy_note). */
    function accuracyCell(cell) {
      var row = cell.getRow().getData();
      var value = show(cell.getValue());
      if (value.trim()) {
        cell.getElement().title = value;
        return document.createTextNode(value);
      }
      var span = document.createElement("span");
      span.className = "ledger-explorer__none";
      span.textContent = NO_ACCURACY;
      var note = show(row.accuracy_note);
      span.title = note
        ? "The accuracy file this site read gives none: " + note + "."
        : "The source of " + show(row.release) + " that this site read publishes " +
          "no accuracy for this result.";
      return span;
    }

    /* The reader's $ per million units (price × accelerator-hours), or why none. */
    function moneyCell(cell) {
      var row = cell.getRow().getData();
      var value = cell.getValue();
      if (typeof value === "number" && isFinite(value)) {
        return document.createTextNode("$" + number(value));
      }
      var span = document.createElement("span");
      span.className = "ledger-explorer__none";
      span.textContent = "\u2014";
      if (cell.getField() === "_energy_cost") {
        if (typeof row.kwh_per_million_units !== "number") {
          span.textContent = "not measured";
          span.title = "MLPerf measured no power for this result; a declared " +
            "design power is never used.";
        } else {
          span.title = "Enter an electricity price ($ per kWh) above the table.";
        }
      } else if (typeof row.accelerator_hours_per_million_units !== "number") {
        span.title = show(row.cost_reason);
      } else {
        span.title = "Enter a price per accelerator-hour for " + show(row.accelerator) +
          " above the table.";
      }
      return span;
    }

    function resultCell(cell) {
      var row = cell.getRow().getData();
      var text = number(row.result_value) || "—";
      var wrap = document.createElement("span");
      var url = show(row.result_url);
      var main;
      if (SAFE_URL.test(url)) {
        main = document.createElement("a");
        main.setAttribute("href", url);
        main.rel = "noopener";
        main.title = show(row.result_key);
      } else {
        main = document.createElement("span");
      }
      main.textContent = text;
      wrap.appendChild(main);
      [["is_preview", "preview"], ["is_inferred", "inferred"]].forEach(function (badge) {
        if (!row[badge[0]]) return;
        var small = document.createElement("small");
        small.className = "ledger-explorer__badge";
        small.textContent = badge[1];
        wrap.appendChild(document.createTextNode(" "));
        wrap.appendChild(small);
      });
      if (NARROW.matches) {
        // On a phone the benchmark, scenario and round stand under the result: the
        // columns that hold them are off screen without a sideways scroll.
        var what = document.createElement("small");
        what.className = "ledger-explorer__what";
        what.textContent = [row.benchmark, row.scenario, row.release].map(show).join(" · ");
        wrap.appendChild(document.createElement("br"));
        wrap.appendChild(what);
      }
      return wrap;
    }

    /* Work per joule where power was measured (samples or tokens per joule for
       Watts; queries per joule for millijoules per query), as the Power page has it. */
    function perJoule(row) {
      var power = row.power_value;
      if (typeof power !== "number" || !(power > 0)) return null;
      if (row.power_unit === "Watts" && row.is_higher_better && typeof row.result_value === "number") {
        return { value: row.result_value / power, unit: show(row.result_unit).replace(/\/s$/, "") + "/J" };
      }
      if (row.power_unit === "millijoules") return { value: 1000 / power, unit: "queries/J" };
      return null;
    }

    function energyCell(cell) {
      var row = cell.getRow().getData();
      var energy = perJoule(row);
      if (!energy) return emptyCell("_per_joule", row);
      return document.createTextNode(number(energy.value) + " " + energy.unit);
    }

    /* The first column (frozen with the result): compare is reachable without a
       sideways scroll, and its name says which result it picks. */
    function compareCell(cell) {
      var key = show(cell.getRow().getData().result_key);
      var button = document.createElement("button");
      button.type = "button";
      button.className = "ledger-explorer__pick";
      button.textContent = "compare";
      button.setAttribute("data-key", key);
      button.setAttribute("aria-label", "compare " + key);
      button.setAttribute("aria-pressed", picked.indexOf(key) >= 0 ? "true" : "false");
      return button;
    }

    function powerCell(cell) {
      var row = cell.getRow().getData();
      if (row.power_value === null || row.power_value === undefined) {
        return emptyCell("power_value", row);
      }
      return document.createTextNode(number(row.power_value) + " " + show(row.power_unit));
    }

    function versionKey(release) {
      var match = /^v(\d+)\.(\d+)$/.exec(show(release));
      return match ? [Number(match[1]), Number(match[2])] : [Infinity, 0];
    }

    function versionSorter(a, b) {
      var x = versionKey(a);
      var y = versionKey(b);
      return x[0] - y[0] || x[1] - y[1] || show(a).localeCompare(show(b));
    }

    /* ---- columns --------------------------------------------------------------- */

    function columns(guard) {
      // A hidden description column is downloaded all the same: the CSV has one
      // schema whether or not the columns are shown.
      function described(field) {
        return DESCRIPTION.indexOf(field) >= 0 ? { download: true } : {};
      }
      function text(title, field, extra) {
        return Object.assign({
          title: title, field: field, formatter: textCell, sorter: "string",
          titleDownload: field, accessorDownload: guard,
        }, described(field), extra || {});
      }
      function numeric(title, field, extra) {
        return Object.assign({
          title: title, field: field, formatter: numberCell, sorter: "number",
          hozAlign: "right", titleDownload: field,
        }, described(field), extra || {});
      }
      function hidden(field, isText) {
        return {
          field: field, title: field, visible: false, download: true,
          titleDownload: field, accessorDownload: isText ? guard : undefined,
        };
      }
      // On a phone the result, who ran it and on what come first and stay narrow,
      // so the three are on screen together.
      var narrow = NARROW.matches;
      return [
        {
          title: "Compare", field: "_compare", formatter: compareCell, headerSort: false,
          download: false, frozen: true, hozAlign: "center",
        },
        numeric("Result", "result_value", {
          formatter: resultCell, frozen: true, cssClass: "ledger-explorer__value",
          maxWidth: narrow ? 92 : undefined,
        }),
        text("Submitter", "submitter", { maxWidth: narrow ? 90 : 220 }),
        text("System", "system_name", { maxWidth: narrow ? 114 : 280, formatter: systemCell }),
        text("Unit", "result_unit"),
        text("Round", "release", { sorter: versionSorter }),
        text("Benchmark", "benchmark"),
        text("Scenario", "scenario"),
        text("Accuracy (as published)", "accuracy_upstream", {
          formatter: accuracyCell, maxWidth: 260,
        }),
        text("Accelerator", "accelerator", { maxWidth: 260 }),
        numeric("Chips", "total_accelerators"),
        numeric("Per accelerator", "result_per_accelerator"),
        numeric("Accelerator-hours per million units", "accelerator_hours_per_million_units", {
          formatter: costCell,
        }),
        {
          title: "$ per million units", field: "_cost", formatter: moneyCell,
          sorter: "number", hozAlign: "right", download: false,
        },
        text("Division", "division"),
        text("Category", "category"),
        text("Availability", "availability"),
        numeric("Power", "power_value", { formatter: powerCell }),
        {
          title: "Per joule", field: "_per_joule", formatter: energyCell, sorter: "number",
          hozAlign: "right", download: false,
        },
        {
          title: "Electricity $ per million units", field: "_energy_cost",
          formatter: moneyCell, sorter: "number", hozAlign: "right", download: false,
        },
        text("Software", "software", { maxWidth: 280 }),
        text("Result ID", "result_id", { maxWidth: 120 }),
        text("Result key", "result_key", { maxWidth: 280 }),
        numeric("Accelerator memory (GB)", "accelerator_memory_gb", { visible: false }),
        text("Accelerator memory (declared)", "accelerator_memory", { visible: false, maxWidth: 200 }),
        text("Interconnect", "interconnect_family", { visible: false, maxWidth: 200 }),
        text("Interconnect (declared)", "accelerator_interconnect", { visible: false, maxWidth: 240 }),
        text("Host CPU", "host_cpu_name", { visible: false, maxWidth: 240 }),
        numeric("Host memory (GB)", "host_memory_gb", { visible: false }),
        text("Cooling", "cooling_kind", { visible: false, maxWidth: 160 }),
        text("Cooling (declared)", "cooling", { visible: false, maxWidth: 200 }),
        text("Framework", "framework", { visible: false, maxWidth: 280 }),
        text("Operating system", "operating_system", { visible: false, maxWidth: 200 }),
        hidden("host_memory", true),
        hidden("accelerator_memory_size", true),
        hidden("system_id", true),
        hidden("power_unit", true),
        hidden("is_higher_better", false),
        hidden("platform", true),
        hidden("is_preview", false),
        hidden("is_inferred", false),
        hidden("accelerator_name", true),
        hidden("nodes", false),
        hidden("result_url", true),
        hidden("citation", true),
        hidden("cost_reason", true),
        hidden("joules_per_unit", false),
        hidden("kwh_per_million_units", false),
        hidden("latency_class", true),
        hidden("ttft_limit_ms", false),
        hidden("tpot_limit_ms", false),
        hidden("tokens_per_second_per_user_at_limit", false),
        hidden("accuracy_note", true),
      ];
    }

    /* ---- filters and the address bar -------------------------------------------- */

    function selects() {
      return Array.prototype.slice.call(form.querySelectorAll("select[data-filter]"));
    }

    function valuesOf(row, field) {
      if (field === "power") return [row.power_value === null ? "no" : "yes"];
      if (field === "category") return show(row.category).split(",").filter(Boolean);
      return [show(row[field])];
    }

    function fillOptions(rows) {
      selects().forEach(function (select) {
        var field = select.getAttribute("data-filter");
        var seen = new Set();
        rows.forEach(function (row) {
          valuesOf(row, field).forEach(function (v) { if (v) seen.add(v); });
        });
        var values = Array.from(seen);
        values.sort(field === "release"
          ? function (a, b) { return versionSorter(b, a); }
          : function (a, b) {
            // "16 GB" before "128 GB": the memory sizes compare as numbers.
            return a.localeCompare(b, "en", { sensitivity: "base",
              numeric: field === "accelerator_memory_size" });
          });
        values.forEach(function (value) {
          var label = field === "power" ? (value === "yes" ? "with power" : "without power") : value;
          select.appendChild(new Option(label, value));
        });
      });
    }

    function readUrl(sortable) {
      var params = new URLSearchParams(window.location.search);
      var state = { filters: {}, find: params.get("find") || "", sort: null, page: 1, size: PAGE_SIZES[0] };
      selects().forEach(function (select) {
        var field = select.getAttribute("data-filter");
        var value = params.get(field);
        if (value) state.filters[field] = value;
      });
      var sort = /^([a-z_]+):(asc|desc)$/.exec(params.get("sort") || "");
      if (sort && sortable.indexOf(sort[1]) >= 0) state.sort = { column: sort[1], dir: sort[2] };
      state.compare = (params.get("compare") || "").split(",").filter(Boolean).slice(0, 2);
      state.grid = params.get("view") === "grid";
      state.describe = params.get("describe") === "1";
      var page = parseInt(params.get("page") || "1", 10);
      if (page > 1) state.page = page;
      var size = parseInt(params.get("size") || "", 10);
      if (PAGE_SIZES.indexOf(size) >= 0) state.size = size;
      return state;
    }

    function applyToForm(state) {
      selects().forEach(function (select) {
        var value = state.filters[select.getAttribute("data-filter")] || "";
        if (value && !Array.prototype.some.call(select.options, function (o) { return o.value === value; })) {
          // A shared link may name a value this build has no rows for: keep it visible.
          select.appendChild(new Option(value + " (no results)", value));
        }
        select.value = value;
      });
      form.elements.find.value = state.find;
    }

    function formState() {
      var filters = {};
      selects().forEach(function (select) {
        if (select.value) filters[select.getAttribute("data-filter")] = select.value;
      });
      return { filters: filters, find: form.elements.find.value.trim() };
    }

    function writeUrl(table) {
      var state = formState();
      var params = new URLSearchParams();
      Object.keys(state.filters).forEach(function (k) { params.set(k, state.filters[k]); });
      if (state.find) params.set("find", state.find);
      var sorters = table.getSorters();
      if (sorters.length) params.set("sort", sorters[0].field + ":" + sorters[0].dir);
      var page = table.getPage();
      if (page > 1) params.set("page", String(page));
      var size = table.getPageSize();
      if (size !== PAGE_SIZES[0]) params.set("size", String(size));
      if (picked.length) params.set("compare", picked.join(","));
      if (gridShown) params.set("view", "grid");
      if (described) params.set("describe", "1");
      // The reader's prices (the price form writes them; prices.js's form).
      var current = new URLSearchParams(window.location.search);
      ["price", "kwh"].forEach(function (name) {
        if (current.get(name) !== null) params.set(name, current.get(name));
      });
      replaceQuery(params);
    }

    /* ---- compare two results ------------------------------------------------------ */

    var picked = [];
    /* The description columns are shown (the "Description columns" button). */
    var described = false;
    var FIELDS = [
      ["Round", "release"], ["Benchmark", "benchmark"], ["Scenario", "scenario"],
      ["Division", "division"], ["Submitter", "submitter"], ["System", "system_name"],
      ["Accelerator", "accelerator"], ["Chips", "total_accelerators"],
      ["Availability", "availability"], ["Software", "software"],
      ["Model as run (open division)", "model_as_run"],
      ["Accuracy (as published)", "accuracy_upstream"], ["Result ID", "result_id"],
      ["Result key", "result_key"], ["How to cite", "citation"],
    ];

    /* Why two results cannot be divided, or "" when a ratio means something. */
    function incomparable(a, b) {
      var why = [];
      if (a.benchmark !== b.benchmark) why.push("different benchmarks");
      if (a.scenario !== b.scenario) why.push("different scenarios");
      if (a.result_unit !== b.result_unit) why.push("different units");
      if (a.division !== b.division) {
        why.push("different divisions (the open division may change the model)");
      } else if (a.division === "open" && a.model_as_run !== b.model_as_run) {
        /* The same rule as the pair tables (benchmarks.toml): one model as run means
           the same submitted model, weight data types, submitter and platform lineage. */
        why.push("open division: the models as run are not shown to be the same (" +
          show(a.model_as_run) + " vs " + show(b.model_as_run) + ")");
      }
      return why.join("; ");
    }

    /* What the site's pair rules (Methodology) say of this pair: same round or not,
       and which reading it would be. */
    function pairingNote(a, b) {
      var sameSystem = a.submitter === b.submitter && a.system_name === b.system_name;
      var sameChip = a.accelerator === b.accelerator;
      if (a.release === b.release) {
        if (sameSystem) return "Both are " + show(a.release) + " results of one system.";
        if (sameChip && a.total_accelerators !== b.total_accelerators) {
          return "Both are from " + show(a.release) + ", on " + show(a.accelerator) +
            " at different counts: the site reads such a pair as scaling only when one " +
            "submitter's one system family ran both (Methodology: scaling).";
        }
        if (!sameChip && a.total_accelerators === b.total_accelerators) {
          return "Both are from " + show(a.release) + ", different accelerators at one " +
            "count: the site pairs a chip with its registered predecessor only " +
            "(Methodology: hardware generations).";
        }
        return "Both are from " + show(a.release) + "; the site's pair pages list only " +
          "same-count chip generations and one system family's scaling (Methodology).";
      }
      if (sameSystem) {
        return "Across rounds (" + show(a.release) + ", " + show(b.release) + ") on one " +
          "system: the site's software gains pair exactly this, when the accelerator " +
          "count is equal too (Methodology: software gains).";
      }
      return "Across rounds (" + show(a.release) + ", " + show(b.release) + ") on " +
        "different systems: hardware, software and rules all changed, so no pair page " +
        "lists it (Methodology).";
    }

    function cellOf(tag, text) {
      var cell = document.createElement(tag);
      cell.textContent = text;
      return cell;
    }

    function renderCompare(byKey) {
      var panel = root.querySelector(".ledger-explorer__compare");
      panel.textContent = "";
      var rows = picked.map(function (key) { return byKey.get(key); }).filter(Boolean);
      if (!rows.length) {
        panel.hidden = true;
        return;
      }
      panel.hidden = false;
      var heading = cellOf("h2", rows.length === 2 ? "Two results side by side" :
        "Pick a second result to compare (the compare button of its row)");
      panel.appendChild(heading);
      var table = document.createElement("table");
      var head = document.createElement("tr");
      head.appendChild(cellOf("th", ""));
      rows.forEach(function (row, i) { head.appendChild(cellOf("th", i ? "B" : "A")); });
      table.appendChild(head);
      var lines = [["Result", function (row) {
        return (number(row.result_value) || "—") + " " + show(row.result_unit);
      }], ["Per accelerator", function (row) { return number(row.result_per_accelerator); }],
      ["Per joule", function (row) {
        var e = perJoule(row);
        return e ? number(e.value) + " " + e.unit : "not measured";
      }]];
      FIELDS.forEach(function (f) {
        lines.push([f[0], function (row) {
          var value = show(row[f[1]]);
          if (f[1] === "accuracy_upstream" && !value.trim()) return NO_ACCURACY;
          return value || f[1] !== "result_id" ? value : "none published (see How to cite)";
        }]);
      });
      lines.forEach(function (line) {
        var tr = document.createElement("tr");
        tr.appendChild(cellOf("th", line[0]));
        rows.forEach(function (row) { tr.appendChild(cellOf("td", line[1](row))); });
        table.appendChild(tr);
      });
      panel.appendChild(table);
      if (rows.length === 2) {
        var a = rows[0], b = rows[1];
        var why = incomparable(a, b);
        var verdict = document.createElement("p");
        verdict.className = "ledger-explorer__verdict";
        if (why) {
          verdict.setAttribute("data-comparable", "no");
          verdict.textContent = "Not comparable: " + why + ". No ratio is given.";
        } else {
          verdict.setAttribute("data-comparable", "yes");
          verdict.textContent = ratioWording(a, b) + " (above 1×: B is better; " +
            (a.is_higher_better ? "higher" : "lower") + " is better). A derived, unofficial " +
            "ratio of two published results. " + pairingNote(a, b);
        }
        panel.appendChild(verdict);
      }
      var clear = document.createElement("button");
      clear.type = "button";
      clear.className = "md-button";
      clear.textContent = "Clear comparison";
      clear.setAttribute("data-action", "uncompare");
      panel.appendChild(clear);
    }

    /* ---- the official-style grid of one round ---------------------------------- */

    /* One row per system of the filtered rows' round, a column per benchmark ·
       scenario with its best result (highest throughput, lowest latency). */
    function gridOf(rows) {
      var systems = {};
      var order = [];
      var columns = {};
      rows.forEach(function (row) {
        var id = [row.division, row.submitter, row.system_name, row.accelerator,
          row.total_accelerators].map(show).join("\u0001");
        var column = show(row.benchmark) + " · " + show(row.scenario) + " (" + show(row.result_unit) + ")";
        columns[column] = true;
        if (!systems[id]) {
          systems[id] = { _values: {}, division: show(row.division), submitter: show(row.submitter),
            system_name: show(row.system_name), accelerator: show(row.accelerator),
            total_accelerators: row.total_accelerators };
          order.push(id);
        }
        var held = systems[id]._values[column];
        var better = held === undefined || (row.is_higher_better
          ? row.result_value > held.result_value : row.result_value < held.result_value);
        if (better) systems[id]._values[column] = row;
      });
      return { systems: order.map(function (id) { return systems[id]; }),
        columns: Object.keys(columns).sort(function (a, b) {
          return a.localeCompare(b, "en", { sensitivity: "base" });
        }) };
    }

    function renderGrid(rows, release) {
      var panel = root.querySelector(".ledger-explorer__grid");
      panel.textContent = "";
      if (!gridShown) {
        panel.hidden = true;
        holder.hidden = false;
        return;
      }
      panel.hidden = false;
      holder.hidden = true;
      if (!release) {
        panel.appendChild(cellOf("p", "Choose one round in the Round filter to see its grid."));
        return;
      }
      var grid = gridOf(rows);
      panel.appendChild(cellOf("p", grid.systems.length.toLocaleString("en-US") +
        " systems of " + release + " that pass the filters, a column per benchmark · " +
        "scenario: each system's best result (values link to the upstream result)."));
      var wrap = document.createElement("div");
      wrap.className = "ledger-explorer__gridwrap";
      var table = document.createElement("table");
      var head = document.createElement("tr");
      ["Submitter", "System", "Accelerator", "Chips", "Division"].concat(grid.columns)
        .forEach(function (title) { head.appendChild(cellOf("th", title)); });
      var thead = document.createElement("thead");
      thead.appendChild(head);
      table.appendChild(thead);
      var body = document.createElement("tbody");
      grid.systems.forEach(function (system) {
        var tr = document.createElement("tr");
        [system.submitter, system.system_name, system.accelerator,
          show(system.total_accelerators), system.division].forEach(function (text) {
          tr.appendChild(cellOf("td", text));
        });
        grid.columns.forEach(function (column) {
          var row = system._values[column];
          var td = document.createElement("td");
          td.setAttribute("data-column", column);
          if (row) {
            var url = show(row.result_url);
            var value = document.createElement(SAFE_URL.test(url) ? "a" : "span");
            if (SAFE_URL.test(url)) value.setAttribute("href", url);
            value.textContent = number(row.result_value);
            value.title = show(row.result_key);
            td.appendChild(value);
          }
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
      table.appendChild(body);
      wrap.appendChild(table);
      panel.appendChild(wrap);
    }

    var gridShown = false;

    function matcher(state) {
      var words = state.find.toLowerCase().split(/\s+/).filter(Boolean);
      var fields = Object.keys(state.filters);
      return function (row) {
        for (var i = 0; i < fields.length; i++) {
          if (valuesOf(row, fields[i]).indexOf(state.filters[fields[i]]) < 0) return false;
        }
        for (var j = 0; j < words.length; j++) {
          if (row._search.indexOf(words[j]) < 0) return false;
        }
        return true;
      };
    }

    /* ---- the table ------------------------------------------------------------- */

    /* Tabulator's grid as ARIA and a keyboard want it: the scrolling body is no
       focus stop of its own (a grid holds rows, and its links and buttons are the
       stops; axe-core's aria-required-children), and sortable headers are reached
       with Tab and sorted with Enter or Space, as with a mouse. */
    function accessible(table) {
      var body = holder.querySelector(".tabulator-tableholder");
      if (body) body.removeAttribute("tabindex");
      holder.querySelectorAll(".tabulator-col.tabulator-sortable").forEach(function (col) {
        col.setAttribute("tabindex", "0");
        col.addEventListener("keydown", function (event) {
          if (event.key !== "Enter" && event.key !== " ") return;
          event.preventDefault();
          var field = col.getAttribute("tabulator-field");
          var now = table.getSorters().filter(function (s) { return s.field === field; })[0];
          table.setSort(field, now && now.dir === "asc" ? "desc" : "asc");
        });
      });
    }

    function mount(data) {
      var start = new RegExp(data.formula_start);
      var guardText = String(data.formula_guard);
      function guard(value) {
        if (typeof value !== "string") return value;
        return start.test(value) ? guardText + value : value;
      }
      var rows = data.data;
      undescribed = data.undescribed && typeof data.undescribed === "object" ? data.undescribed : {};
      noValue = Array.isArray(data.no_value) ? data.no_value : [];
      rows.forEach(function (row) {
        row._search = SEARCHED.map(function (f) { return show(row[f]); }).join(" \u0001 ").toLowerCase();
      });
      fillOptions(rows);
      noteRoundsWithout(rows);
      /* A Map, not a plain object: a key from the address ("__proto__",
         "constructor") must find no result rather than the object's prototype. */
      var byKey = new Map();
      rows.forEach(function (row) {
        byKey.set(row.result_key, row);
        var energy = perJoule(row);
        row._per_joule = energy ? energy.value : null;
      });
      var pricing = setUpPrices(rows);
      var cols = columns(guard);
      var sortable = cols.filter(function (c) { return c.visible !== false; })
        .map(function (c) { return c.field; });
      var state = readUrl(sortable);
      applyToForm(state);
      picked = state.compare.filter(function (key) { return byKey.has(key); });
      renderCompare(byKey);
      root.addEventListener("click", function (event) {
        var target = event.target;
        if (target.matches && target.matches(".ledger-explorer__pick")) {
          var key = target.getAttribute("data-key");
          if (picked.indexOf(key) < 0) picked = picked.concat([key]).slice(-2);
        } else if (target.matches && target.matches("[data-action=uncompare]")) {
          picked = [];
        } else {
          return;
        }
        renderCompare(byKey);
        root.querySelectorAll(".ledger-explorer__pick").forEach(function (button) {
          var on = picked.indexOf(button.getAttribute("data-key")) >= 0;
          button.setAttribute("aria-pressed", on ? "true" : "false");
        });
        writeUrl(table);
      });
      var total = rows.length;
      var restoring = true;
      var table = new window.Tabulator(holder, {
        data: rows,
        columns: cols,
        layout: "fitDataFill",
        pagination: true,
        paginationSize: state.size,
        paginationSizeSelector: PAGE_SIZES,
        paginationCounter: "rows",
        /* Outside the grid: a role="grid" may only hold rows (axe-core's
           aria-required-children), not the page buttons and page-size select. */
        paginationElement: root.querySelector(".ledger-explorer__pages"),
        paginationCounterElement: root.querySelector(".ledger-explorer__pages"),
        initialSort: state.sort ? [state.sort] : [],
        placeholder: "No result matches these filters.",
        downloadRowRange: "active",
      });

      function count(matching) {
        root.setAttribute("data-matching", String(matching));
        status.textContent = matching.toLocaleString("en-US") + " of " +
          total.toLocaleString("en-US") + " results match.";
      }

      /* Under the filters: which rounds a description filter leaves out because
         their source declares no such field (so 0 rows of v6.1 is not a silence). */
      var excluded = root.querySelector(".ledger-explorer__excluded");
      function noteExcluded(filters) {
        if (!excluded) return;
        var lines = Object.keys(DESCRIBED_FILTERS).filter(function (field) {
          return filters[field] && (undescribed[field] || []).length;
        }).map(function (field) {
          var rounds = undescribed[field].map(show);
          return series(rounds) + (rounds.length === 1 ? " has" : " have") +
            " no declared " + DESCRIBED_FILTERS[field] + " in the source this site " +
            "read; filtering by " + DESCRIBED_FILTERS[field] + " excludes " +
            (rounds.length === 1 ? "it." : "them.");
        });
        excluded.textContent = lines.join(" ");
        excluded.hidden = !lines.length;
      }
      noteExcluded(state.filters);

      var applied = JSON.stringify(formState());
      function refilter() {
        // Leaving the search box fires "change" too: filtering again unchanged would
        // send the reader back to page 1.
        var current = formState();
        var key = JSON.stringify(current);
        if (key === applied) return;
        applied = key;
        noteExcluded(current.filters);
        table.setFilter(matcher(current));
      }

      var describeButton = form.querySelector("[data-action=describe]");
      function describe(on) {
        described = on;
        describeButton.setAttribute("aria-pressed", on ? "true" : "false");
        DESCRIPTION.forEach(function (field) {
          var column = table.getColumn(field);
          if (column) { if (on) column.show(); else column.hide(); }
        });
      }
      if (describeButton) {
        if (state.describe) describe(true);
        describeButton.addEventListener("click", function () {
          describe(describeButton.getAttribute("aria-pressed") !== "true");
          writeUrl(table);
        });
      }

      var gridButton = form.querySelector("[data-action=grid]");
      function showGrid() {
        gridButton.setAttribute("aria-pressed", gridShown ? "true" : "false");
        var active = table.getData("active");
        renderGrid(active, formState().filters.release || "");
      }
      gridShown = state.grid;
      gridButton.addEventListener("click", function () {
        gridShown = !gridShown;
        showGrid();
        writeUrl(table);
      });
      table.on("dataFiltered", function (filters, matched) {
        count(matched.length);
        if (gridShown) {
          renderGrid(matched.map(function (r) { return r.getData(); }),
            formState().filters.release || "");
        }
      });
      ["dataSorted", "pageLoaded", "dataFiltered"].forEach(function (event) {
        table.on(event, function () { if (!restoring) writeUrl(table); });
      });
      table.on("tableBuilt", function () {
        accessible(table);
        table.setFilter(matcher(formState()));
        count(table.getDataCount("active"));
        var ready = state.page > 1 ? table.setPage(state.page) : Promise.resolve();
        Promise.resolve(ready).catch(function () { return table.setPage(1); }).then(function () {
          restoring = false;
          if (gridShown) showGrid();
          writeUrl(table);
          root.setAttribute("data-state", "ready");
        });
      });

      form.addEventListener("change", refilter);
      var typing = null;
      form.elements.find.addEventListener("input", function () {
        clearTimeout(typing);
        typing = setTimeout(refilter, 200);
      });
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        refilter();
      });
      form.addEventListener("reset", function () {
        // The form clears its fields after this event: filter once they are empty.
        setTimeout(function () { table.clearSort(); refilter(); }, 0);
      });
      form.querySelector("[data-action=download]").addEventListener("click", function () {
        table.download("csv", "mlperf-ledger-explorer.csv", {}, "active");
      });
      pricing.attach(table);
      root.__table = table;
    }

    /* ---- the reader's prices ------------------------------------------------------ */

    /* The price form: one accelerator's price per hour at a time, and the
       electricity price; the address and storage are prices.js's
       (window.ledgerPrices), so a model page's link gives the same prices here. */
    function setUpPrices(rows) {
      var api = window.ledgerPrices;
      var panel = root.querySelector(".ledger-explorer__prices");
      var labels = new Map();
      rows.forEach(function (row) {
        var key = show(row.price_key);
        // Only accelerators with accelerator-hours: a CPU-only row has none to price.
        if (typeof row.accelerator_hours_per_million_units !== "number") return;
        if (/^[a-z0-9-]+$/.test(key) && !labels.has(key)) labels.set(key, show(row.accelerator));
      });
      var state = api
        ? api.read(function (key) { return labels.has(key); })
        : { values: {}, kwh: null, refused: [] };
      var table = null;

      function apply() {
        rows.forEach(function (row) {
          var key = show(row.price_key);
          var price = Object.prototype.hasOwnProperty.call(state.values, key)
            ? state.values[key] : undefined;
          var hours = row.accelerator_hours_per_million_units;
          row._cost = price !== undefined && typeof hours === "number" ? price * hours : null;
          var kwh = row.kwh_per_million_units;
          row._energy_cost = state.kwh !== null && typeof kwh === "number" ? state.kwh * kwh : null;
        });
      }
      apply();
      if (!panel || !api) return { attach: function () {} };

      var select = panel.querySelector("[data-price=accelerator]");
      var hour = panel.querySelector("[data-price=hour]");
      var kwhInput = panel.querySelector("[data-price=kwh]");
      var said = panel.querySelector(".ledger-explorer__priced");
      Array.from(labels.keys()).sort(function (a, b) {
        return labels.get(a).localeCompare(labels.get(b), "en", { sensitivity: "base" });
      }).forEach(function (key) { select.appendChild(new Option(labels.get(key), key)); });
      if (state.kwh !== null) kwhInput.value = String(state.kwh);

      function describe(note) {
        var priced = Object.keys(state.values).sort().map(function (key) {
          return labels.get(key) + " $" + state.values[key] + "/h";
        });
        if (state.kwh !== null) priced.push("electricity $" + state.kwh + "/kWh");
        var text = priced.length ? "Priced: " + priced.join("; ") + "." : "No price entered.";
        if (note) text += " " + note;
        said.textContent = text;
      }
      describe(state.refused.length
        ? "Ignored from the address: " + show(state.refused.join("; ")) + "." : "");

      function save() {
        var url = api.withPrices(window.location.href, state.values, state.kwh);
        window.history.replaceState(window.history.state, "", url);
        var page = {};
        labels.forEach(function (_, key) { page[key] = true; });
        api.remember(page, state.values, state.kwh);
        apply();
        if (table) table.setData(rows);
      }

      select.addEventListener("change", function () {
        var value = state.values[select.value];
        hour.value = value === undefined ? "" : value;  // a number the reader gave
      });
      panel.addEventListener("submit", function (event) { event.preventDefault(); });
      panel.addEventListener("change", function (event) {
        var input = event.target;
        if (input !== hour && input !== kwhInput) return;
        var text = input.value.trim();
        var value = text === "" ? null : api.price(text);
        if (text !== "" && value === null) {
          describe("Ignored: \u201c" + show(text) + "\u201d is not a positive number.");
          return;
        }
        if (input === kwhInput) {
          state.kwh = value;
        } else if (select.value) {
          if (value === null) delete state.values[select.value];
          else state.values[select.value] = value;
        } else {
          describe("Choose the accelerator this price is for.");
          return;
        }
        save();
        describe("");
      });
      panel.hidden = false;
      return { attach: function (t) { table = t; } };
    }

    function load() {
      root.setAttribute("data-state", "loading");
      status.textContent = "Loading " +
        Number(root.getAttribute("data-rows") || 0).toLocaleString("en-US") + " results…";
      Promise.all([loadLibrary(), loadData()])
        .then(function (loaded) {
          var first = root.querySelector(".ledger-explorer__first");
          if (first) first.remove();
          mount(loaded[1]);
        })
        .catch(function (error) { fail(error.message); });
    }

    /* The page shows the table's first page as plain HTML. The data file (11k rows)
       and the table library load when the reader reaches for the table: focus, a
       press or a key anywhere in it, or the "Load all" button; a phone renders the
       page without them. An address that holds a view (filters, sort, a pair) loads
       them at once: that view is what the link shows. */
    var button = root.querySelector("[data-action=load]");
    loadStyles();  // the form's layout; small, unlike the data and the library
    legacyQuery(new URLSearchParams(window.location.search));
    if (!root.querySelector(".ledger-explorer__first") || window.location.search) {
      load();
      return;
    }
    root.setAttribute("data-state", "static");
    var REACH = ["focusin", "pointerdown", "keydown"];
    function reach() {
      REACH.forEach(function (name) { root.removeEventListener(name, reach); });
      load();
    }
    REACH.forEach(function (name) { root.addEventListener(name, reach); });
    if (button) {
      button.hidden = false;
      button.addEventListener("click", reach);
    }
  }

  window.ledgerOnPage(start);  // material.js
})();
