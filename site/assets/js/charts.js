/*
 * Embed every Vega-Lite chart on the page with vega-embed.
 *
 * A chart container is <div class="vega-chart" data-spec="../charts/name.json">; the
 * path is relative to the page. Data files named in a spec ("data/name.json") are
 * resolved against the spec's folder, so specs stay valid wherever a page lives.
 *
 * Material's instant navigation swaps page content without reloading scripts; its
 * document$ observable emits after every swap, so we (re-)embed there.
 */
(function () {
  "use strict";

  var EMBED_OPTIONS = {
    renderer: "svg",
    // No action menu: its "open in editor" would send the spec to vega.github.io,
    // and every chart already links its Vega-Lite JSON below it.
    actions: false,
  };

  function fail(el, message) {
    el.classList.add("vega-chart--error");
    el.textContent = "Chart could not be drawn: " + message;
  }

  function embed(el) {
    if (el.getAttribute("data-state")) return;
    el.setAttribute("data-state", "loading");
    var specUrl = new URL(el.getAttribute("data-spec"), document.baseURI);
    fetch(specUrl)
      .then(function (response) {
        if (!response.ok) throw new Error(response.status + " for " + specUrl.pathname);
        return response.json();
      })
      .then(function (spec) {
        var options = Object.assign({}, EMBED_OPTIONS, {
          loader: { baseURL: new URL(".", specUrl).href },
        });
        el.replaceChildren();
        return window.vegaEmbed(el, spec, options);
      })
      .then(function () {
        el.setAttribute("data-state", "rendered");
      })
      .catch(function (error) {
        el.setAttribute("data-state", "failed");
        fail(el, error.message);
        console.error("vega-chart", specUrl.href, error);
      });
  }

  function embedAll() {
    var charts = document.querySelectorAll("div.vega-chart[data-spec]");
    if (charts.length === 0) return;
    if (typeof window.vegaEmbed !== "function") {
      charts.forEach(function (el) { fail(el, "the Vega bundle did not load"); });
      return;
    }
    charts.forEach(embed);
  }

  if (typeof window.document$ !== "undefined") {
    window.document$.subscribe(embedAll);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", embedAll);
  } else {
    embedAll();
  }
})();
