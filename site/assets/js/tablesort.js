/*
 * Click a table header to sort by that column; click again to reverse.
 *
 * Material documents tablesort from a CDN; the site loads nothing from other hosts,
 * so this is a small local equivalent. Cells sort numerically when their text is a
 * number (thousands separators, "×" and units ignored), otherwise as text.
 */
(function () {
  "use strict";

  var NUMBER = /^[^0-9-]*(-?[0-9][0-9,]*(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)/i;

  function key(cell) {
    var text = (cell ? cell.textContent : "").trim();
    var match = NUMBER.exec(text);
    if (match && /^[^A-Za-z]*[0-9]/.test(text)) {
      return { number: parseFloat(match[1].replace(/,/g, "")), text: text };
    }
    return { number: NaN, text: text.toLowerCase() };
  }

  function compare(a, b) {
    var bothNumbers = !isNaN(a.number) && !isNaN(b.number);
    if (bothNumbers) return a.number - b.number;
    if (!isNaN(a.number)) return -1;
    if (!isNaN(b.number)) return 1;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }

  function sortBy(table, index, header) {
    var body = table.tBodies[0];
    if (!body) return;
    var descending = header.getAttribute("aria-sort") === "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.removeAttribute("aria-sort");
    });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var rows = Array.prototype.slice.call(body.rows).map(function (row, position) {
      return { row: row, key: key(row.cells[index]), position: position };
    });
    rows.sort(function (a, b) {
      var order = compare(a.key, b.key) || a.position - b.position;
      return descending ? -order : order;
    });
    rows.forEach(function (item) { body.appendChild(item.row); });
  }

  /* Cells of hand-written tables (Methodology, the Performance page) name their
     column too, as generated cells do (pipeline/render/tables.py): on a phone every
     table then stacks into the same cards (ledger.css). Header text is set as an
     attribute value, never parsed as markup. */
  function label(table) {
    var titles = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
      return th.textContent.trim();
    });
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, index) {
          var named = cell.hasAttribute("data-label") ||
            (cell.firstElementChild && cell.firstElementChild.hasAttribute("data-label"));
          if (!named && titles[index]) cell.setAttribute("data-label", titles[index]);
        });
      });
    });
  }

  function enable(table) {
    if (table.getAttribute("data-sortable") || !table.tHead) return;
    table.setAttribute("data-sortable", "true");
    label(table);
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.setAttribute("tabindex", "0");
      th.setAttribute("title", "Sort by this column");
      var handler = function (event) {
        if (event.type === "keydown" && event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        sortBy(table, index, th);
      };
      th.addEventListener("click", handler);
      th.addEventListener("keydown", handler);
    });
  }

  function enableAll() {
    document.querySelectorAll("article table").forEach(enable);
  }

  window.ledgerOnPage(enableAll);  // material.js
})();
