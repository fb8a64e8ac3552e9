/*
 * The systems list (generated/systems.html): a filter over its rows, and old
 * addresses taken on to the system's section.
 *
 * Loaded by that page only (pipeline/render/mkdocs/hooks.py puts its <script> at
 * the end of the article; Material's instant navigation
 * runs it again whenever the page is swapped in). Every system's section is a
 * static heading on its family page; this script only hides rows that do not hold
 * what the reader typed (never removes them: without JavaScript the whole list
 * shows) and, when the address names a row (systems.html#<system id>, the address
 * system links had before the family pages), replaces the address with the row's
 * own link. It reads row text and writes counts with textContent only.
 */
(function () {
  "use strict";

  var ID = /^[a-z0-9-]+$/;

  function start() {
    var form = document.querySelector(".ledger-systems__filter");
    var body = document.querySelector(".ledger-systems__index tbody");
    if (!form || !body || form.__ledgerReady) return;
    form.__ledgerReady = true;

    var id = decodeURIComponent(window.location.hash.slice(1));
    var named = ID.test(id) ? document.getElementById(id) : null;
    if (named && named.tagName === "TR" && body.contains(named)) {
      var link = named.querySelector("a[href]");
      if (link) {
        window.location.replace(link.href);
        return;
      }
    }

    var rows = Array.prototype.slice.call(body.rows);
    var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
    var input = form.querySelector("input");
    var output = form.querySelector("output");
    function filter() {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      rows.forEach(function (row, i) {
        var match = words.every(function (word) { return texts[i].indexOf(word) !== -1; });
        row.hidden = !match;
        if (match) shown += 1;
      });
      output.textContent = words.length
        ? shown.toLocaleString("en-US") + " of " + rows.length.toLocaleString("en-US") + " systems"
        : "";
    }
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    input.addEventListener("input", filter);
    form.hidden = false;
    filter();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
