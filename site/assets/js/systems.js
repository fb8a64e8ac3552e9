/*
 * The systems list (generated/systems.html): a filter over its rows, and old
 * addresses taken on to the system's section.
 *
 * Loaded by that page only (pipeline/render/mkdocs/hooks.py puts its <script> at
 * the end of the article; Material's instant navigation
 * runs it again whenever the page is swapped in). Every system's section is a
 * static heading on its family page; the list folds each submitter's systems under
 * its name. This script only hides rows that do not hold what the reader typed and
 * opens the folded tables that hold a match (never removes a row: without
 * JavaScript every name unfolds by hand) and, when the address names a row (systems.html#<system id>, the address
 * system links had before the family pages), replaces the address with the row's
 * own link. It reads row text and writes counts with textContent only.
 */
(function () {
  "use strict";

  var ID = /^[a-z0-9-]+$/;

  function start() {
    var form = document.querySelector(".ledger-systems__filter");
    var list = document.querySelector(".ledger-systems__index");
    if (!form || !list || form.__ledgerReady) return;
    form.__ledgerReady = true;

    var id = decodeURIComponent(window.location.hash.slice(1));
    var named = ID.test(id) ? document.getElementById(id) : null;
    if (named && named.tagName === "TR" && list.contains(named)) {
      var link = named.querySelector("a[href]");
      if (link) {
        window.location.replace(link.href);
        return;
      }
    }

    // One table per submitter: a row's text is its own and its submitter's line.
    var rows = Array.prototype.slice.call(list.querySelectorAll("tbody tr"));
    var texts = rows.map(function (row) {
      var group = row.closest(".ledger-systems__group");
      var name = group && group.querySelector("summary");
      return ((name ? name.textContent + " " : "") + row.textContent).toLowerCase();
    });
    var groups = Array.prototype.slice.call(list.querySelectorAll(".ledger-systems__group"));
    var input = form.querySelector("input");
    var output = form.querySelector("output");
    function filter() {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      rows.forEach(function (row, i) {
        var match = words.every(function (word) { return texts[i].indexOf(word) !== -1; });
        if (row.hidden === match) row.hidden = !match;
        if (match) shown += 1;
      });
      // A submitter's table without a matching row goes too.
      // A submitter's table opens when the filter matches rows in it and goes
      // when it matches none; clearing the filter folds again those it opened.
      groups.forEach(function (box) {
        var any = box.querySelector("tbody tr:not([hidden])") !== null;
        if (box.hidden === any) box.hidden = !any;
        if (words.length && any && !box.open) {
          box.open = true;
          box.__openedByFilter = true;
        } else if (!words.length && box.__openedByFilter) {
          box.open = false;
          box.__openedByFilter = false;
        }
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
    document.addEventListener("DOMContentLoaded", start, { once: true });
  } else {
    start();
  }
})();
