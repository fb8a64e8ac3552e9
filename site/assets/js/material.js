/*
 * Material's bundle on a reader's first move, and each page's scripts once per page.
 *
 * Material's bundle (search, instant navigation, the header's page title, the table
 * of contents that follows the reader, the back-to-top button, the scheme toggle)
 * restyles the whole document several times as it starts: on a long page that is a
 * second of a phone's main thread, spent before the reader can tap anything
 * (Lighthouse: 1.3-3 s of blocking time on Home, Latest and the pair pages). None of
 * it is needed to read a page: links, tables, <details>, the navigation drawer and
 * the search box (CSS toggles) work without it, and the colour scheme is set by
 * Material's inline head script. So the hook (pipeline/render/mkdocs/hooks.py) leaves
 * the bundle's address in an inert <script data-ledger-material type="text/plain">,
 * and this script loads it on the reader's first pointer move, touch, key, focus
 * or wheel. A scroll event alone is not a reader's move: the browser fires one when
 * it opens a page at an anchor (a system on its family page) or restores a scroll
 * position, and Material starting then moved the anchored heading as the page was
 * still settling. A reader's own scrolling starts with a touch, wheel, key or
 * pointer, all counted. Material starts on DOMContentLoaded, long past by then, so that
 * event is dispatched again once the bundle has run; the site's own scripts listen
 * with {once: true} and are not run twice by it. The build wraps tables as Material
 * does (the hook's wrap_tables), so a page lays out the same before and after;
 * Material wraps them again when it starts, and the build's wrappers are then
 * removed (unwrap), on the loaded page and after every swap.
 *
 * ledgerOnPage(start) is how the site's scripts run on each page: at once for the
 * page as loaded, and after each instant-navigation swap once Material runs (its
 * document$ replays the loaded page first: that one is skipped). Where Material was
 * loaded as usual (a build without the hook), it subscribes to document$ as before.
 */
(function () {
  "use strict";

  var REACH = ["pointerdown", "touchstart", "keydown", "focusin", "wheel", "mousemove"];
  var starts = [];
  var requested = false;

  // The build's table wrapper, once Material has put its own inside it.
  function unwrap() {
    document.querySelectorAll("[data-ledger-wrap]").forEach(function (ours) {
      var theirs = ours.querySelector(".md-typeset__scrollwrap");
      if (theirs) ours.replaceWith(theirs);
    });
  }

  function afterSwaps() {
    var loaded = true;
    window.document$.subscribe(function () {
      unwrap();
      if (loaded) {
        loaded = false;  // the page as loaded: its scripts ran already
        return;
      }
      starts.forEach(function (start) { start(); });
    });
  }

  function load() {
    if (requested) return;
    requested = true;
    REACH.forEach(function (name) {
      window.removeEventListener(name, load, { capture: true });
    });
    var inert = document.querySelector("script[data-ledger-material]");
    if (!inert) return;
    var script = document.createElement("script");
    script.src = inert.getAttribute("data-ledger-material");
    script.onload = function () {
      document.dispatchEvent(new Event("DOMContentLoaded"));
      if (typeof window.document$ !== "undefined") afterSwaps();
    };
    document.body.appendChild(script);
  }

  window.ledgerOnPage = function (start) {
    if (typeof window.document$ !== "undefined" && !requested) {
      window.document$.subscribe(start);  // Material loaded as usual
      return;
    }
    starts.push(start);
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", start, { once: true });
    } else {
      start();
    }
  };

  if (typeof window.document$ === "undefined") {
    REACH.forEach(function (name) {
      window.addEventListener(name, load, { capture: true, passive: true });
    });
  }
})();
